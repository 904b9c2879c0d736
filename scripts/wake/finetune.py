#!/usr/bin/env python3
"""Fine-tunes the wake word detector's weights for where it fails: far
from the microphone and in loud babble.

    nice -n 10 /usr/bin/python3 scripts/wake/finetune.py --base bin/wake/base.bin [--work bin/wake-ft] [--out audio/wake/model.bin]
        [--loud | --crowd] [--voices 0.5] [--echo-rooms 0.6] [--dereverb] [--epochs 4] [--lr 2e-4]

Starts from a model file as audio/wake reads it (--base: what train.py
wrote, or an earlier fine-tuning's), so it needs neither train.py's caches
nor its two hours. Steps, each cached in --work like train.py's:

1. speech: train.py's espeak-ng speech in a smaller amount (--speech), the
   same voices held out;
2. clips, 2.4 s each, labelled as train.py labels them; with --voices,
   that share of the utterances is made another voice first
   (data.other_voice: its spectrum stretched as by a vocal tract of
   another size, its tempo changed, another microphone's colour):
   - the phrase far from the microphone (data.far_field: a room made
     unlike train.py's, with little or no direct sound, reverberation of
     0.4 to 6 s decaying faster in the highs; with --echo-rooms, that
     share in data.echo_room's recirculating echoes of up to 6 s;
     low-passed, at -45 to -12 dBFS peak, over faint noise or other
     talkers);
   - the phrase in babble of 2-6 talkers (with brown noise in some) at
     -4 to 6 dB SNR;
   - everyday speech and decoys far from the microphone, and loud babble
     alone or over everyday speech and decoys, labelled 0;
   - train.py's own mix, so quiet rooms and moderate noise are not
     forgotten;
   - and, apart (--decoy-clips), wake decoys alone or in sentences, far
     away, in babble at -4 to 10 dB or as train.py mixes them, labelled 0;
   - and (--noise-clips) train.py's mix again, the phrase in half of them
     in steady noise or music at 0 to 12 dB;
3. the network, trained from --base for --epochs at a low rate with its
   weights quantised as they are stored (4 bits for the dilated layers, 8
   for the others, a scale per output channel; the gradient passes the
   rounding unchanged) and batch normalisation held where the base file
   folded it, so the trained weights are the stored ones;
4. the threshold, as train.py chooses it, on the held-out voices' streams
   in its six conditions and far from the microphone (and in the echo
   rooms with --echo-rooms); the typical delay
   between the phrase's end and the decision stays the base file's;
5. the weights and the parity fixture, as train.py writes them.

--loud (the committed weights' last fine-tuning, from the previous
fine-tuning's weights, with 6,000 + 2,000 + 2,000 clips) shifts the clips
towards where the phrase is still missed: the phrase in babble at -6 to
6 dB (a quarter of the clips) and in white, pink or brown noise at -3 to
10 dB (a tenth), loud babble alone or over other speech (a fifth), less
of the far field. --crowd (tried, not what made the committed weights) is a recipe for the
phrase in loud babble: babble of 2-8 talkers, from the training voices and
from more sentences by voices over espeak-ng's whole speed and pitch range,
the phrase at 0-5 dB mostly; brown noise; peak levels from -48 dBFS; more
voices for the phrase; data.NEAR_MISSES among the decoys, also in the
held-out streams the threshold is chosen on. --dereverb trains on features with the late reverberation taken out
(model.DEREVERB_ON, written to the model file's header); --epochs 0 only
chooses the threshold anew for --base's weights under the features asked
for.

Seeded throughout, torch on one thread: a rerun on the same espeak-ng,
sox, numpy and torch makes the same weights.
"""

import argparse
import hashlib
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import model  # noqa: E402
import train  # noqa: E402

SEED = train.SEED + 1000
CONDITIONS = train.CONDITIONS + [("far field", "far", None)]
ECHO_CONDITION = ("far field, echoes", "longfar", None)

# Shares of the clips by kind; --loud shifts them towards the phrase in
# loud babble and steady noise (LOUD_KINDS).
KINDS = [("far phrase", 0.25), ("babble phrase", 0.20), ("far other", 0.15), ("babble other", 0.15), ("as trained", 0.25)]
LOUD_KINDS = [("far phrase", 0.15), ("babble phrase", 0.25), ("noise phrase", 0.10), ("far other", 0.10),
              ("babble other", 0.20), ("as trained", 0.20)]
# The SNR (dB) of the phrase in babble, and with --loud in steady noise.
BABBLE_SNR = (-4, 6)
LOUD_BABBLE_SNR = (-6, 6)
NOISE_SNR = (-3, 10)
# --crowd (this fine-tuning, from --loud's weights): the phrase in babble of
# two to eight talkers at -2 to 8 dB, most of it at 0 to 5 dB, the talkers
# drawn from the training voices and from others (CROWD_TALKERS); in
# brown noise at 0 to 10 dB; at levels from far below to near full scale;
# said by more espeak-ng voices, speeds and pitches (CROWD_PHRASES); and
# the near misses of data.NEAR_MISSES among the decoys.
CROWD_KINDS = [("far phrase", 0.06), ("babble phrase", 0.30), ("brown phrase", 0.08), ("noise phrase", 0.04),
               ("far other", 0.06), ("babble other", 0.20), ("as trained", 0.26)]
CROWD_BABBLE_SNR = (-2, 8)
CROWD_TALKERS = 700
CROWD_PHRASES = 1400
CROWD_LEVEL_DB = (-48, -1)


# The recipe's options (main sets them from the flags): the share of
# utterances made another voice (--voices, data.other_voice) and of far
# fields in echo rooms (--echo-rooms, data.far_field's echoes).
VOICES = 0.0
ECHO = 0.0
CROWD = False
# The decoys --crowd says in its own voices: data.NEAR_MISSES, or with
# --plain-decoys data.DECOYS, for a threshold chosen against everyday
# decoys only (the near misses sound most like the phrase, so the
# held-out streams ask more of the threshold with them).
CROWD_DECOYS = data.NEAR_MISSES


def far_cond(rng):
    """Which far field: data.far_field's, or its echoes' longer, other
    rooms for a share ECHO of them."""
    return "longfar" if ECHO > 0 and rng.random() < ECHO else "far"


def clip(rng, s, kind, voices=None):
    """One clip of a kind: audio and the phrase's end (None: no phrase)."""
    voices = VOICES if voices is None else voices
    pool = s["neg_train"]
    if kind == "far phrase":
        canvas, end = train.positive_clip(rng, s, "train", voices)
        return train.background(rng, canvas, pool, cond=far_cond(rng)), end
    if kind == "babble phrase":
        canvas, end = train.positive_clip(rng, s, "train", voices)
        cond = "babble" if rng.random() < 0.7 else "babble+brown"
        if CROWD:
            return crowd(rng, canvas, s, cond, crowd_snr(rng)), end
        return train.background(rng, canvas, pool, cond=cond, snr=rng.uniform(*BABBLE_SNR)), end
    if kind == "brown phrase":
        canvas, end = train.positive_clip(rng, s, "train", voices)
        return crowd(rng, canvas, s, "brown", rng.uniform(0, 10)), end
    if kind == "noise phrase":
        canvas, end = train.positive_clip(rng, s, "train", voices)
        return train.background(rng, canvas, pool, cond="colour", snr=rng.uniform(*NOISE_SNR)), end
    if kind == "far other":
        return train.background(rng, train.negative_clip(rng, s, "train", voices), pool, cond=far_cond(rng)), None
    if kind == "babble other" and CROWD:
        canvas = np.zeros(train.CLIP, np.float32) if rng.random() < 0.4 else train.negative_clip(rng, s, "train", voices)
        return crowd(rng, canvas, s, "babble", rng.uniform(-6, 8)), None
    if kind == "babble other":
        if rng.random() < 0.5:  # loud babble alone
            canvas = np.zeros(train.CLIP, np.float32)
            return train.background(rng, canvas, pool, cond="babble", level_db=(-20, -1)), None
        return train.background(rng, train.negative_clip(rng, s, "train", voices), pool, cond="babble", snr=rng.uniform(-6, 6)), None
    if rng.random() < 0.4:
        canvas, end = train.positive_clip(rng, s, "train", voices)
    else:
        canvas, end = train.negative_clip(rng, s, "train", voices), None
    return train.background(rng, canvas, pool), end


def crowd_snr(rng):
    """The phrase's SNR in --crowd's babble: 0 to 5 dB in most clips, -2
    to 8 dB in the rest."""
    return rng.uniform(0, 5) if rng.random() < 0.7 else rng.uniform(*CROWD_BABBLE_SNR)


def crowd(rng, x, s, cond, snr):
    """x over --crowd's background at snr dB: babble of 2-8 talkers from
    the training voices and CROWD_TALKERS ("babble", or "babble+brown"
    with brown noise under it), or brown noise alone ("brown"); the room
    and microphone as train.background makes them, the level anywhere in
    CROWD_LEVEL_DB. A canvas with no speech is the background alone, as
    loud as the babble would be over speech at that SNR."""
    n = len(x)
    if cond == "brown":
        noise = data.coloured_noise(rng, n, "brown")
    else:
        pool = s["neg_train"] if rng.random() < 0.4 else s["crowd_train"]
        noise = data.babble(rng, pool, n, int(rng.choice([2, 2, 3, 4, 5, 6, 8])))
        if cond == "babble+brown":
            noise = noise + rng.uniform(0.3, 1.0) * data.coloured_noise(rng, n, "brown")
            noise /= np.sqrt((noise ** 2).mean()) + 1e-9
    level = data.rms_active(x) if np.abs(x).max() > 0 else 0.05
    y = x + noise * level / 10 ** (snr / 20)
    return train.background(rng, y, None, cond="none", level_db=CROWD_LEVEL_DB)


def decoy_clip(rng, s):
    """A wake decoy (alone, ending where the scores are, or in a
    sentence) far from the microphone, in babble, or as train.py mixes."""
    canvas = np.zeros(train.CLIP, np.float32)
    if rng.random() < 0.7:
        pool = s["decoy_train"]
        sp, _ = train.perturb(rng, pool[int(rng.integers(len(pool)))], VOICES)
        train.place(canvas, sp, int(rng.uniform(1.3, 2.35) * train.SR) - len(sp))
        if rng.random() < 0.4:
            other = s["neg_train"][int(rng.integers(len(s["neg_train"])))]
            train.place(canvas, other, int(rng.uniform(1.35, 2.5) * train.SR))
    else:
        pool = s["decoysent_train"]
        sp, _ = train.perturb(rng, pool[int(rng.integers(len(pool)))], VOICES)
        train.place(canvas, sp, int(rng.uniform(0.3, 1.8) * train.SR))
    r = rng.random()
    if r < 0.35:
        return train.background(rng, canvas, s["neg_train"], cond=far_cond(rng)), None
    if r < 0.7:
        cond = "babble" if rng.random() < 0.7 else "babble+brown"
        if CROWD:
            return crowd(rng, canvas, s, cond, rng.uniform(-4, 10)), None
        return train.background(rng, canvas, s["neg_train"], cond=cond, snr=rng.uniform(-4, 10)), None
    return train.background(rng, canvas, s["neg_train"]), None


def noise_clip(rng, s):
    """train.py's clips with the phrase in steady noise or music at 0 to
    12 dB in half of them: what the far field and babble must not cost."""
    if rng.random() < 0.5:
        canvas, end = train.positive_clip(rng, s, "train", VOICES)
        cond = "colour" if rng.random() < 0.7 else "music"
        if CROWD and cond == "colour" and rng.random() < 0.5:
            return crowd(rng, canvas, s, "brown", rng.uniform(0, 12)), end
        return train.background(rng, canvas, s["neg_train"], cond=cond, snr=rng.uniform(0, 12)), end
    return clip(rng, s, "as trained")


key = train.key


def recipe():
    """What shapes the clips besides their count and seed: the recipe's
    shares, SNRs, voices, rooms and features."""
    r = {"kinds": KINDS, "babble_snr": BABBLE_SNR, "noise_snr": NOISE_SNR, "voices": VOICES, "echo": ECHO,
         "dereverb": model.DEREVERB, "crowd": CROWD}
    if CROWD:
        r.update(crowd_snr=CROWD_BABBLE_SNR, crowd_level=CROWD_LEVEL_DB, crowd_talkers=CROWD_TALKERS,
                 crowd_phrases=CROWD_PHRASES, near_misses=CROWD_DECOYS)
    return r


def crowd_speech(work, s, seed):
    """--crowd's speech, cached by its parameters: talkers for the babble
    (everyday sentences by wide_voice voices, half of them made another
    voice by data.other_voice), the phrase by wide_voice voices (alone),
    and data.NEAR_MISSES alone and before a sentence; training and
    held-out variants apart as in train.py. The phrases and near misses
    are added to s's pools, the talkers are s["crowd_*"]."""
    path = os.path.join(work, "crowd-speech-%s.npz" % key(seed=seed, talkers=CROWD_TALKERS, phrases=CROWD_PHRASES,
                                                            near=CROWD_DECOYS, wake=data.WAKE_TEXTS))
    names = ["crowd", "kw", "decoy", "decoysent"]
    if os.path.exists(path):
        z = np.load(path)
        got = {n + "_" + sp: train._unpack(z, n + "_" + sp) for n in names for sp in ["train", "held"]}
    else:
        rng = np.random.default_rng(seed)
        train_v, held_v = data.split_variants(data.espeak_variants())
        sentences = data.SENTENCES + data.generated_sentences(rng, 200) + data.REQUESTS
        got = {}
        for split, vs, scale in [("train", train_v, 1.0), ("held", held_v, 0.2)]:
            n = lambda k: int(k * scale)  # noqa: E731
            vo = lambda: data.wide_voice(rng, vs)  # noqa: E731
            talkers = data.synth_many([(str(rng.choice(sentences)), vo()) for _ in range(n(CROWD_TALKERS))])
            got["crowd_" + split] = [data.other_voice(rng, t)[0] if rng.random() < 0.5 else t for t in talkers]
            got["kw_" + split] = data.synth_many([(str(rng.choice(data.WAKE_TEXTS)), vo()) for _ in range(n(CROWD_PHRASES))])
            got["decoy_" + split] = data.synth_many([(str(rng.choice(CROWD_DECOYS)), vo()) for _ in range(n(CROWD_PHRASES))])
            jobs = []
            for _ in range(n(CROWD_PHRASES // 3)):
                sep = ", " if rng.random() < 0.5 else " "
                jobs.append((str(rng.choice(CROWD_DECOYS)) + sep + str(rng.choice(sentences)), vo()))
            got["decoysent_" + split] = data.synth_many(jobs)
            train.log("crowd speech (%s): %s" % (split, ", ".join("%s %d" % (k, len(v)) for k, v in got.items() if k.endswith(split))))
        out = {}
        for k, v in got.items():
            out[k + "_pcm"], out[k + "_off"] = train._pack(v)
        np.savez(path, **out)
    for k, v in got.items():
        s[k] = v if k.startswith("crowd_") else s[k] + v


def build_clips(work, s, count, seed, name, make=None):
    path = os.path.join(work, "%s-%s.npz" % (name, key(count=count, seed=seed, make=make and make.__name__, recipe=recipe())))
    if os.path.exists(path):
        z = np.load(path)
        return z["x"], z["y"]
    rng = np.random.default_rng(seed)
    frames = 1 + (train.CLIP - model.FRAME) // model.HOP
    steps = train.n_steps(frames)
    xs = np.zeros((count, frames, model.NMELS), np.float16)
    ys = np.zeros((count, steps), np.int8)
    names, shares = [k for k, _ in KINDS], np.array([p for _, p in KINDS])
    t0 = time.time()
    for k in range(count):
        if make is not None:
            x, end = make(rng, s)
        else:
            x, end = clip(rng, s, names[rng.choice(len(names), p=shares / shares.sum())])
        xs[k] = model.logmel(x)
        ys[k] = train.labels(steps, end)
        if (k + 1) % 2000 == 0:
            train.log("clips (%s): %d of %d, %.0f s" % (name, k + 1, count, time.time() - t0))
    np.savez(path, x=xs, y=ys)
    return xs, ys


def _fq(w, top):
    """w rounded as model.to_bytes stores it (-top..top, a scale per output
    channel), with the gradient of w itself."""
    s = w.detach().abs().flatten(1).max(dim=1).values / float(top)
    s = torch.where(s > 0, s, torch.ones_like(s)).reshape(-1, *([1] * (w.dim() - 1)))
    return w + (torch.clamp(torch.round(w.detach() / s), -top, top) * s - w.detach()).detach()


def forward_quantised(net, feats):
    """model.Net.forward with the weights as stored: 4-bit dilated layers,
    8-bit first layer and head."""
    x = ((feats - net.mean) * net.scale).transpose(1, 2)
    h = torch.relu(net.bn1(F.conv1d(x, _fq(net.l1.weight, 127), net.l1.bias, stride=model.STRIDE)))
    for conv, bn, d in zip(net.convs, net.bns, model.DILATIONS):
        y = torch.relu(bn(F.conv1d(net.drop(h), _fq(conv.weight, 7), conv.bias, dilation=d)))
        h = h[:, :, (model.KERNEL - 1) * d:] + y
    h = torch.relu(F.conv1d(net.drop(h), _fq(net.h1.weight, 127), net.h1.bias))
    return F.conv1d(h, _fq(net.h2.weight, 127), net.h2.bias).squeeze(1)


def finetune(work, net, xs, ys, vx, vy, epochs, lr, batch=64, tag=""):
    path = os.path.join(work, "net-ft-%s.pt" % key(tag=tag, epochs=epochs, lr=lr, batch=batch, seed=SEED))
    if os.path.exists(path):
        net.load_state_dict(torch.load(path))
        return net
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED + 1)
    # Batch normalisation stays what the base file folded (the identity):
    # its statistics and its scale and shift are not trained.
    bns = [net.bn1] + list(net.bns)
    for bn in bns:
        for p in bn.parameters():
            p.requires_grad_(False)
    params = [p for p in net.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=1e-4)
    steps_per_epoch = len(xs) // batch
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * steps_per_epoch)
    for ep in range(epochs):
        net.train()
        for bn in bns:
            bn.eval()
        order = rng.permutation(len(xs))
        t0, tot, cnt = time.time(), 0.0, 0
        for b in range(steps_per_epoch):
            idx = np.sort(order[b * batch:(b + 1) * batch])
            x = train.spec_augment(rng, xs[idx].astype(np.float32), ys[idx], cold=0.15, gain=0.2)
            y = torch.from_numpy(ys[idx].astype(np.float32))
            logits = forward_quantised(net, torch.from_numpy(x))
            mask = (y >= 0).float()
            loss = F.binary_cross_entropy_with_logits(logits, y.clamp(min=0), weight=mask, reduction="sum") / mask.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot, cnt = tot + loss.item(), cnt + 1
        vl, vacc = train.evaluate(model.quantized(net), vx, vy)
        train.log("epoch %d: loss %.4f, held-out loss %.4f, %s (%.0f s)" % (ep + 1, tot / cnt, vl, vacc, time.time() - t0))
    torch.save(net.state_dict(), path)
    return net


def train_on_clips(a, s, net):
    """Steps 2 and 3: the clips, then the network trained on them."""
    xs, ys = build_clips(a.work, s, a.clips, SEED + 2, "clips")
    tag = key(base=a.base_digest, clips=a.clips, decoys=a.decoy_clips, noise=a.noise_clips, speech=a.speech, recipe=recipe())
    # The decoys again, where the phrase is now heard better: far away
    # and in babble.
    dx, dy = build_clips(a.work, s, a.decoy_clips, SEED + 4, "clips-decoy", make=decoy_clip)
    nx, ny = build_clips(a.work, s, a.noise_clips, SEED + 5, "clips-noise", make=noise_clip)
    xs, ys = np.concatenate([xs, dx, nx]), np.concatenate([ys, dy, ny])
    del dx, dy, nx, ny
    # Held-out clips: train.py's mix of the held-out voices, then the
    # fine-tuning's far and babble ones of the same voices.
    s_held = dict(s)
    for k in ["kw", "kwsent", "neg", "decoy", "decoysent", "kwsent_end"] + (["crowd"] if CROWD else []):
        s_held[k + "_train"] = s[k + "_held"]
    vx, vy = build_clips(a.work, s_held, a.clips // 8, SEED + 3, "clips-held")
    vl, vacc = train.evaluate(model.quantized(net), vx, vy)
    train.log("base on the held-out clips: loss %.4f, %s" % (vl, vacc))
    return finetune(a.work, net, xs, ys, vx, vy, a.epochs, a.lr, tag=tag)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", default="bin/wake/base.bin", help="the model file to start from")
    ap.add_argument("--work", default="bin/wake-ft")
    ap.add_argument("--out", default="audio/wake/model.bin")
    ap.add_argument("--fixture", default="audio/wake/testdata/parity.json")
    ap.add_argument("--fixture-wav", default="audio/testdata/hey_jibo_what_time.wav")
    ap.add_argument("--speech", type=float, default=0.25, help="train.py's --speech")
    ap.add_argument("--clips", type=int, default=16000)
    ap.add_argument("--decoy-clips", type=int, default=5000)
    ap.add_argument("--noise-clips", type=int, default=5000)
    ap.add_argument("--epochs", type=int, default=4, help="0: the base weights as they are, only the threshold chosen anew")
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--other-minutes", type=float, default=70)
    ap.add_argument("--decoy-minutes", type=float, default=21)
    ap.add_argument("--wake-minutes", type=float, default=21)
    ap.add_argument("--voices", type=float, default=0.0, help="share of utterances made another voice (data.other_voice)")
    ap.add_argument("--echo-rooms", type=float, default=0.0,
                    help="share of far fields in echo rooms (data.far_field's echoes); above 0 the threshold is chosen in them too")
    ap.add_argument("--dereverb", action="store_true", help="features with the late reverberation taken out (model.DEREVERB_ON)")
    ap.add_argument("--loud", action="store_true",
                    help="more of the phrase in babble (at -6 to 6 dB) and in steady noise (-3 to 10 dB), more loud babble alone")
    ap.add_argument("--crowd", action="store_true",
                    help="the phrase in babble of 2-8 training and other talkers at 0-5 dB mostly, in brown noise, at other levels; "
                         "more voices for the phrase and near misses among the decoys")
    ap.add_argument("--plain-decoys", action="store_true",
                    help="with --crowd: data.DECOYS in its voices instead of data.NEAR_MISSES, in training and in the threshold's streams")
    a = ap.parse_args()
    global VOICES, ECHO, KINDS, BABBLE_SNR, CROWD, CROWD_DECOYS
    VOICES, ECHO = a.voices, a.echo_rooms
    if a.loud and a.crowd:
        ap.error("--loud and --crowd are two recipes: give one")
    if a.loud:
        KINDS, BABBLE_SNR = LOUD_KINDS, LOUD_BABBLE_SNR
    if a.crowd:
        KINDS, CROWD = CROWD_KINDS, True
    if a.plain_decoys:
        if not a.crowd:
            ap.error("--plain-decoys goes with --crowd")
        CROWD_DECOYS = data.DECOYS
    if a.dereverb:
        model.DEREVERB = dict(model.DEREVERB_ON)
    conditions = CONDITIONS + ([ECHO_CONDITION] if ECHO > 0 else [])
    torch.set_num_threads(1)
    os.makedirs(a.work, exist_ok=True)
    with open(a.base, "rb") as f:
        base = f.read()
    a.base_digest = hashlib.sha1(base).hexdigest()
    net, base_detect = model.from_bytes(base)
    s, ends = train.build_speech(a.work, a.speech, name="speech-" + key(amount=a.speech, seed=train.SEED))
    for k, v in ends.items():
        s[k.replace("kwsent_", "kwsent_end_")] = v
    if CROWD:
        crowd_speech(a.work, s, SEED + 30)
    if a.epochs > 0:
        net = train_on_clips(a, s, net)
    net = model.quantized(net)
    th, lag = train.choose_threshold(net, s, a.other_minutes, a.decoy_minutes, a.wake_minutes, conditions=conditions, seed=SEED + 7)
    # Where the listener cuts the command from the phrase stays the
    # base's: the measured delay moves by a few milliseconds between runs,
    # which changes nothing on the tuning set but moves every cut.
    train.log("measured delay %.0f ms; the base's %d ms kept" % (lag, base_detect["end_lag_ms"]))
    if base_detect.get("hold", 0) > 0:
        # The threshold chosen here is the mean's; the base's delay was
        # set for its held rule, which loudset.py --write gives back.
        train.log("the base decides by %d held steps, this model by the mean of %d: give it the held rule with "
                  "loudset.py --hold --threshold --end-lag-ms --write (make wake-train's last step)" %
                  (base_detect["hold"], train.SMOOTH))
    detect = {"threshold": th, "smooth": train.SMOOTH, "refractory": train.REFRACTORY, "end_lag_ms": base_detect["end_lag_ms"]}
    model.export(net, a.out, detect)
    train.fixture(net, a.fixture_wav, a.fixture)
    train.log("wrote %s (%d bytes) and %s" % (a.out, os.path.getsize(a.out), a.fixture))
    # Which decoys still wake it, reported after the weights are written
    # (it takes a while: the decoys are synthesised anew).
    held = data.split_variants(data.espeak_variants())[1]
    train.decoy_report(net, th, held)
    if CROWD:
        train.decoy_report(net, th, held, decoys=data.NEAR_MISSES)


if __name__ == "__main__":
    main()
