#!/usr/bin/env python3
"""Trains the wake word detector of audio/wake and writes its weights.

    nice -n 10 /usr/bin/python3 scripts/wake/train.py [--work bin/wake] [--out audio/wake/model.bin]

Needs Debian's python3-torch and python3-numpy (scripts/deps.sh --train),
espeak-ng and sox. Steps, each cached in --work so a rerun starts where the
last one stopped (each cache named by the options that made it, so other
options do not reuse it; delete the folder to start afresh):

1. speech: the wake phrase, the wake decoys, everyday sentences, requests
   and word salad, said by espeak-ng voices (its base voices with its
   variants, speeds, pitches and word gaps), every seventh variant held out
   of training;
2. clips: 2.4 s of audio each, the phrase (alone, followed by speech,
   after speech) or other speech, in rooms (synthetic reverberation,
   far-field), through other microphones (spectral tilt, low-pass), at
   other speeds, in noise (white, pink, brown, babble of 2–6 espeak-ng
   talkers, music-like sound) at -3..25 dB SNR, labelled every 20 ms: the
   phrase just ended (1), not (0), or unsure (left out);
3. the network (model.py), trained on the training voices' clips, then
   tuned twice, a few epochs each, with its hard negatives: where it wakes
   or nearly wakes on 25 hours of the training voices' everyday speech
   and decoys in every condition (2.4 s clips ending there, labelled 0),
   with more of the phrase in babble and noise at low SNR, and in the
   second round far from the microphone and at other levels too; the
   first frames of some clips are repeated as a stream's start is;
4. the threshold, chosen on long streams of the held-out voices in six
   conditions (quiet, noise, babble at 10 and 5 dB, music, babble with
   brown noise): the lowest that wakes at most once per two hours of
   everyday speech and on at most 2 % of decoys; what every threshold
   gives is printed, and which decoys still wake;
5. the weights, written with the threshold for audio/wake to embed (as
   int8 with a scale per output channel; the threshold is chosen with the
   weights so stored), and the parity fixture its tests compare the Go
   features and scores with.

Everything is seeded: a rerun on the same espeak-ng, sox, numpy and torch
makes the same weights. torch runs on one thread (a shared machine).
"""

import argparse
import hashlib
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import model  # noqa: E402

SR = data.SR
CLIP = int(2.4 * SR)
SEED = 20261127

# Labels around the end of the phrase (seconds from it): a step whose
# newest frame ends in [POS_FROM, POS_TO] is the phrase just said; just
# before and after it the answer is left open.
POS_FROM, POS_TO = -0.03, 0.15
UNSURE_BEFORE, UNSURE_AFTER = 0.12, 0.45

# Detection settings (audio/wake reads them from the weights' header).
SMOOTH = 3  # steps averaged: 60 ms
REFRACTORY = 50  # steps: 1 s


def key(*parts, **params):
    """A short digest of what makes a cached file (earlier stages' keys,
    counts, seeds, recipes): its name says what made it, so a run with
    other options makes its own files rather than reusing another's."""
    payload = [parts, params] if parts else params
    return hashlib.sha1(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:10]


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


# --- 1. speech ----------------------------------------------------------------


def build_speech(work, amount, name="speech"):
    path = os.path.join(work, name + ".npz")
    if os.path.exists(path):
        z = np.load(path, allow_pickle=False)
        keys = [b + "_" + sp for b in ["kw", "kwsent", "neg", "decoy", "decoysent"] for sp in ["train", "held"]]
        return {k: _unpack(z, k) for k in keys}, {k: z[k + "_end"] for k in ["kwsent_train", "kwsent_held"]}
    rng = np.random.default_rng(SEED)
    variants = data.espeak_variants()
    train_v, held_v = data.split_variants(variants)
    log("variants: %d for training, %d held out: %s" % (len(train_v), len(held_v), " ".join(held_v)))
    words = data.dictionary_words("/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict")
    sentences = data.SENTENCES + data.generated_sentences(rng, 400)
    if words:
        sentences += data.word_salad(rng, words, 400)
    speech, ends = {}, {}
    for split, vs, scale in [("train", train_v, amount), ("held", held_v, 0.2 * amount)]:
        r = np.random.default_rng(rng.integers(1 << 62))

        def voices(n):
            return [data.random_voice(r, vs) for _ in range(n)]

        n = lambda k: int(k * scale)  # noqa: E731
        jobs = [(str(r.choice(data.WAKE_TEXTS)), v) for v in voices(n(3500))]
        speech["kw_" + split] = data.synth_many(jobs)
        # The phrase followed by a request or a sentence, in one breath or
        # after a comma; where the phrase ends is where it ends when said
        # alone by the same voice.
        jobs, alone = [], []
        for v in voices(n(2500)):
            w = str(r.choice(data.WAKE_TEXTS[:6] + ["hey jibbo", "hey jeebo"]))
            follow = str(r.choice(data.REQUESTS)) if r.random() < 0.6 else str(r.choice(sentences))
            sep = ", " if r.random() < 0.5 else " "
            jobs.append((w.rstrip("!?") + sep + follow, v))
            alone.append((w.rstrip("!?"), v))
        full, kw = data.synth_many(jobs), data.synth_many(alone)
        speech["kwsent_" + split] = full
        ends["kwsent_" + split] = np.array([min(len(k), len(f)) for k, f in zip(kw, full)])
        jobs = [(str(r.choice(sentences + data.REQUESTS)), v) for v in voices(n(6000))]
        speech["neg_" + split] = data.synth_many(jobs)
        jobs = [(str(r.choice(data.DECOYS)), v) for v in voices(n(2000))]
        speech["decoy_" + split] = data.synth_many(jobs)
        jobs = []
        for v in voices(n(1200)):
            d = str(r.choice(data.DECOYS))
            jobs.append((d + (", " if r.random() < 0.5 else " ") + str(r.choice(sentences + data.REQUESTS)), v))
        speech["decoysent_" + split] = data.synth_many(jobs)
        log("speech (%s): %s" % (split, ", ".join("%s %d" % (k, len(v)) for k, v in speech.items() if k.endswith(split))))
    out = {}
    for k, v in speech.items():
        out[k + "_pcm"], out[k + "_off"] = _pack(v)
    for k, v in ends.items():
        out[k + "_end"] = v
    np.savez(path, **out)
    return speech, ends


def _pack(clips):
    off = np.cumsum([0] + [len(c) for c in clips])
    pcm = np.concatenate(clips) if clips else np.zeros(0, np.float32)
    return (np.clip(pcm, -1, 1) * 32767).astype(np.int16), off


def _unpack(z, k):
    pcm, off = z[k + "_pcm"], z[k + "_off"]
    return [pcm[off[i]:off[i + 1]].astype(np.float32) / 32767 for i in range(len(off) - 1)]


# --- 2. clips -----------------------------------------------------------------


def background(rng, x, babble_pool, cond=None, snr=None, far=False, level_db=(-35, -1)):
    """Puts speech x (a clip) in a room, a microphone and noise. far puts
    it far from the microphone always, and further than otherwise (little
    direct sound, long reverberation, dull); level_db is the range of the
    result's peak level. cond "far" is data.far_field instead, and
    "longfar" data.far_field with echoes (the fine-tuning's far fields,
    finetune.py)."""
    n = len(x)
    if cond in ("far", "longfar"):
        x = data.far_field(rng, x, babble_pool, echoes=cond == "longfar")
        return np.clip(np.round(x * 32768), -32768, 32767).astype(np.float32) / 32768
    r = 1.0 if far else rng.random()
    if far:
        x = data.convolve(x, data.room(rng, rng.uniform(0.4, 1.2), rng.uniform(0.05, 0.5)))
        x = data.equalise(rng, x, lowpass=rng.uniform(2000, 5000))
    elif r < 0.25:
        x = data.convolve(x, data.room(rng, rng.uniform(0.15, 0.9), rng.uniform(0.5, 3.0)))
    elif r < 0.37:  # far from the microphone: more room than voice, duller
        x = data.convolve(x, data.room(rng, rng.uniform(0.3, 1.0), rng.uniform(0.1, 0.8)))
        x = data.equalise(rng, x, lowpass=rng.uniform(2500, 6000))
    if rng.random() < 0.5:
        x = data.equalise(rng, x)
    level = data.rms_active(x) if np.abs(x).max() > 0 else 0.05
    if cond is None:
        cond = rng.choice(["none", "colour", "babble", "music", "babble+brown"], p=[0.2, 0.25, 0.3, 0.15, 0.1])
    if cond != "none":
        if cond == "colour":
            noise = data.coloured_noise(rng, n, rng.choice(["white", "pink", "brown"]))
        elif cond == "babble":
            noise = data.babble(rng, babble_pool, n, int(rng.integers(2, 7)))
        elif cond == "music":
            noise = data.music(rng, n)
        else:
            noise = data.babble(rng, babble_pool, n, int(rng.integers(2, 5))) + 0.7 * data.coloured_noise(rng, n, "brown")
            noise /= np.sqrt((noise ** 2).mean()) + 1e-9
        if snr is None:
            snr = rng.uniform(-2, 20) if "babble" in cond else rng.uniform(-3, 25)
        x = x + noise * level / 10 ** (snr / 20)
    peak = np.abs(x).max() + 1e-9
    x = x * (10 ** (rng.uniform(*level_db) / 20) / peak)
    if rng.random() < 0.6:
        x = x + rng.standard_normal(n).astype(np.float32) * 10 ** (rng.uniform(-95, -65) / 20)
    return np.clip(np.round(x * 32768), -32768, 32767).astype(np.float32) / 32768


def perturb(rng, sp, voices=0.0):
    """sp played faster or slower, or with probability voices as another
    voice (data.other_voice); returns it and how much faster it is."""
    if voices and rng.random() < voices:
        return data.other_voice(rng, sp)
    f = rng.uniform(0.88, 1.12) if rng.random() < 0.6 else 1.0
    return (data.speed(sp, f) if f != 1.0 else sp), f


def place(canvas, sp, at):
    a, b = max(at, 0), min(at + len(sp), len(canvas))
    if b > a:
        canvas[a:b] += sp[a - at:b - at]


def positive_clip(rng, s, split, voices=0.0):
    canvas = np.zeros(CLIP, np.float32)
    if rng.random() < 0.5:
        sp = s["kw_" + split][int(rng.integers(len(s["kw_" + split])))]
        end, alone = len(sp), True
    else:
        i = int(rng.integers(len(s["kwsent_" + split])))
        sp, end, alone = s["kwsent_" + split][i], int(s["kwsent_end_" + split][i]), False
    sp, f = perturb(rng, sp, voices)
    end = int(end / f)
    e = int(rng.uniform(1.32, 2.30) * SR)
    start = max(e - end, int(rng.uniform(0.0, 0.1) * SR))
    e = start + end
    place(canvas, sp, start)
    if rng.random() < 0.35:  # someone spoke just before
        other = s["neg_" + split][int(rng.integers(len(s["neg_" + split])))]
        place(canvas, other * rng.uniform(0.5, 1.5), start - int(rng.uniform(0.15, 0.8) * SR) - len(other))
    if alone and rng.random() < 0.5:  # and goes on speaking
        other = s["neg_" + split][int(rng.integers(len(s["neg_" + split])))]
        place(canvas, other, e + int(rng.uniform(0.05, 0.5) * SR))
    return canvas, e


def negative_clip(rng, s, split, voices=0.0):
    canvas = np.zeros(CLIP, np.float32)
    r = rng.random()
    if r < 0.5:
        pool = s["neg_" + split]
        sp, _ = perturb(rng, pool[int(rng.integers(len(pool)))], voices)
        place(canvas, sp, int(rng.integers(-len(sp) + SR // 2, CLIP - SR // 4)))
    elif r < 0.75:  # a decoy ending where the scores are
        pool = s["decoy_" + split]
        sp, _ = perturb(rng, pool[int(rng.integers(len(pool)))], voices)
        place(canvas, sp, int(rng.uniform(1.3, 2.35) * SR) - len(sp))
        if rng.random() < 0.4:
            other = s["neg_" + split][int(rng.integers(len(s["neg_" + split])))]
            place(canvas, other, int(rng.uniform(1.35, 2.5) * SR))
    elif r < 0.93:
        pool = s["decoysent_" + split]
        sp, _ = perturb(rng, pool[int(rng.integers(len(pool)))], voices)
        place(canvas, sp, int(rng.uniform(0.3, 1.8) * SR))
    # else: noise alone
    return canvas


def labels(n_steps, end):
    """Per step: 1, 0, or -1 (left out), for a clip whose phrase ends at
    sample end (None: no phrase)."""
    y = np.zeros(n_steps, np.int8)
    if end is None:
        return y
    t = (model.step_end_samples(n_steps) - end) / SR
    y[(t >= -UNSURE_BEFORE) & (t <= UNSURE_AFTER)] = -1
    y[(t >= POS_FROM) & (t <= POS_TO)] = 1
    return y


def n_steps(frames):
    first = (frames - model.KERNEL) // model.STRIDE + 1
    return first - model.receptive_steps()


def build_clips(work, s, split, count, pos_share, seed, tag=""):
    path = os.path.join(work, "clips-%s%s.npz" % (split, tag))
    if os.path.exists(path):
        z = np.load(path)
        return z["x"], z["y"]
    rng = np.random.default_rng(seed)
    frames = 1 + (CLIP - model.FRAME) // model.HOP
    steps = n_steps(frames)
    xs = np.zeros((count, frames, model.NMELS), np.float16)
    ys = np.zeros((count, steps), np.int8)
    babble_pool = s["neg_" + split]
    t0 = time.time()
    for k in range(count):
        if rng.random() < pos_share:
            canvas, end = positive_clip(rng, s, split)
        else:
            canvas, end = negative_clip(rng, s, split), None
        x = background(rng, canvas, babble_pool)
        xs[k] = model.logmel(x)
        ys[k] = labels(steps, end)
        if (k + 1) % 5000 == 0:
            log("clips (%s): %d of %d, %.0f s" % (split, k + 1, count, time.time() - t0))
    np.savez(path, x=xs, y=ys)
    return xs, ys


# --- 3. training ----------------------------------------------------------------


def spec_augment(rng, x, y=None, cold=0.0, gain=0.0):
    """Masks a few mel bands and a few frames of each clip; with
    probability cold, the clip's first k frames are its k-th repeated, as
    a stream's start is (model.stream_features): never into the phrase;
    with probability gain, the clip is made 20 dB quieter to 6 dB louder
    (its log energies moved, none below the floor)."""
    b, t, f = x.shape
    ends = model.step_end_samples(y.shape[1]) if y is not None else None
    floor = np.log(model.LOG_FLOOR)
    for i in range(b):
        if gain > 0 and rng.random() < gain:
            x[i] = np.maximum(x[i] + rng.uniform(-20, 6) * np.log(10) / 10, floor)
        if cold > 0 and rng.random() < cold:
            top = 130
            pos = np.nonzero(y[i] == 1)[0] if y is not None else []
            if len(pos):
                top = min(top, int((ends[pos[0]] - 1.25 * SR) // model.HOP))
            if top > 1:
                k = int(rng.integers(1, top))
                x[i, :k] = x[i, k]
        for _ in range(2):
            w = int(rng.integers(0, 6))
            f0 = int(rng.integers(0, f - w + 1))
            x[i, :, f0:f0 + w] = x[i].mean()
        w = int(rng.integers(0, 6))
        t0 = int(rng.integers(0, t - w + 1))
        x[i, t0:t0 + w, :] = x[i].mean()
    return x


def train(work, xs, ys, vx, vy, epochs, batch=64, tag=""):
    path = os.path.join(work, "net%s.pt" % tag)
    net = model.Net()
    if os.path.exists(path):
        net.load_state_dict(torch.load(path))
        return net
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED + 1)
    sample = xs[rng.choice(len(xs), min(len(xs), 4000), replace=False)].astype(np.float32)
    net.mean.copy_(torch.from_numpy(sample.mean(axis=(0, 1))))
    net.scale.copy_(torch.from_numpy(1.0 / (sample.std(axis=(0, 1)) + 1e-3)))
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-3)
    steps_per_epoch = len(xs) // batch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=epochs * steps_per_epoch, pct_start=0.15)
    for ep in range(epochs):
        net.train()
        order = rng.permutation(len(xs))
        t0, tot, cnt = time.time(), 0.0, 0
        for b in range(steps_per_epoch):
            idx = np.sort(order[b * batch:(b + 1) * batch])
            x = spec_augment(rng, xs[idx].astype(np.float32))
            y = torch.from_numpy(ys[idx].astype(np.float32))
            logits = net(torch.from_numpy(x))
            mask = (y >= 0).float()
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, y.clamp(min=0), weight=mask, reduction="sum") / mask.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot, cnt = tot + loss.item(), cnt + 1
        vl, vacc = evaluate(net, vx, vy)
        log("epoch %d: loss %.4f, held-out loss %.4f, %s (%.0f s)" % (ep + 1, tot / cnt, vl, vacc, time.time() - t0))
    torch.save(net.state_dict(), path)
    return net


def evaluate(net, vx, vy):
    net.eval()
    with torch.no_grad():
        tot, n, pos_hit, pos_n, neg_max = 0.0, 0, 0, 0, []
        for b in range(0, len(vx), 256):
            x = torch.from_numpy(vx[b:b + 256].astype(np.float32))
            y = torch.from_numpy(vy[b:b + 256].astype(np.float32))
            lg = net(x)
            mask = (y >= 0).float()
            tot += (torch.nn.functional.binary_cross_entropy_with_logits(lg, y.clamp(min=0), weight=mask, reduction="sum")).item()
            n += mask.sum().item()
            p = torch.sigmoid(lg)
            ispos = (y == 1).any(dim=1)
            pos_hit += ((p * (y == 1)).max(dim=1).values[ispos] > 0.5).sum().item()
            pos_n += ispos.sum().item()
            neg_max += p[~ispos].max(dim=1).values.tolist()
    neg_max = np.array(neg_max)
    return tot / n, "phrases over 0.5: %d of %d, other clips over 0.5: %d of %d" % (pos_hit, pos_n, (neg_max > 0.5).sum(), len(neg_max))


# --- 3b. hard negatives -----------------------------------------------------------


def mine(work, net, s, hours, seed, name="hard"):
    """Where the network wakes, or nearly, on long streams of the training
    voices' everyday speech and decoys in every condition (babble and
    noise at low SNR the most): 2.4 s clips ending just after each such
    step, labelled 0 throughout, for the network to learn from."""
    path = os.path.join(work, name + ".npz")
    if os.path.exists(path):
        return np.load(path)["x"]
    rng = np.random.default_rng(seed)
    feats, t0 = [], time.time()
    conds = [("quiet", "none", None)] + [c for c in CONDITIONS if c[1] != "none"] * 2
    for k in range(int(hours * 60)):
        _, cond, snr = conds[k % len(conds)]
        if snr is not None:
            snr = snr + rng.uniform(-4, 4)
        x, _, _ = stream(rng, s, "decoy" if k % 3 == 0 else "other", 60, cond, snr, split="train")
        p = scores(net, x)
        sm = np.convolve(p, np.ones(SMOOTH) / SMOOTH)[:len(p)]
        ends = model.stream_step_end_samples(len(p))
        last = -10 ** 9
        for j in np.argsort(-sm):
            if sm[j] < 0.2:
                break
            if abs(j - last) < REFRACTORY:
                continue
            last = j
            end = int(ends[j] + rng.uniform(0.0, 0.35) * SR)
            if end - CLIP < 0 or end > len(x):
                continue
            feats.append(model.logmel(x[end - CLIP:end]).astype(np.float16))
        if (k + 1) % 300 == 0:
            log("mining: %d min of speech, %d hard clips, %.0f s" % (k + 1, len(feats), time.time() - t0))
    xs = np.stack(feats) if feats else np.zeros((0, 238, model.NMELS), np.float16)
    np.savez(path, x=xs)
    return xs


def noisy_positives(work, s, count, seed, name="noisy-pos", far=0.0):
    """More of the phrase in babble and noise at low SNR, where it is
    missed most; a share far of them far from the microphone, and quiet
    (peak -55 to -15 dBFS)."""
    path = os.path.join(work, name + ".npz")
    if os.path.exists(path):
        z = np.load(path)
        return z["x"], z["y"]
    rng = np.random.default_rng(seed)
    frames = 1 + (CLIP - model.FRAME) // model.HOP
    steps = n_steps(frames)
    xs = np.zeros((count, frames, model.NMELS), np.float16)
    ys = np.zeros((count, steps), np.int8)
    for k in range(count):
        canvas, end = positive_clip(rng, s, "train")
        cond = rng.choice(["babble", "babble+brown", "colour", "music"], p=[0.45, 0.3, 0.15, 0.1])
        if far > 0 and rng.random() < far:
            x = background(rng, canvas, s["neg_train"], cond=cond, snr=rng.uniform(5, 25), far=True, level_db=(-55, -15))
        else:
            x = background(rng, canvas, s["neg_train"], cond=cond, snr=rng.uniform(-3, 10))
        xs[k] = model.logmel(x)
        ys[k] = labels(steps, end)
    np.savez(path, x=xs, y=ys)
    return xs, ys


def finetune(work, net, xs, ys, vx, vy, epochs, batch=64, name="net-tuned", seed=SEED + 5, gain=0.0):
    """A few more epochs at a lower rate on the clips, the hard negatives
    and the noisy phrases together."""
    path = os.path.join(work, name + ".pt")
    if os.path.exists(path):
        net.load_state_dict(torch.load(path))
        return net
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed + 1)
    opt = torch.optim.AdamW(net.parameters(), lr=5e-4, weight_decay=1e-3)
    steps_per_epoch = len(xs) // batch
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * steps_per_epoch)
    for ep in range(epochs):
        net.train()
        order = rng.permutation(len(xs))
        t0, tot, cnt = time.time(), 0.0, 0
        for b in range(steps_per_epoch):
            idx = np.sort(order[b * batch:(b + 1) * batch])
            x = spec_augment(rng, xs[idx].astype(np.float32), ys[idx], cold=0.15, gain=gain)
            y = torch.from_numpy(ys[idx].astype(np.float32))
            logits = net(torch.from_numpy(x))
            mask = (y >= 0).float()
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, y.clamp(min=0), weight=mask, reduction="sum") / mask.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot, cnt = tot + loss.item(), cnt + 1
        vl, vacc = evaluate(net, vx, vy)
        log("fine-tuning epoch %d: loss %.4f, held-out loss %.4f, %s (%.0f s)" % (ep + 1, tot / cnt, vl, vacc, time.time() - t0))
    torch.save(net.state_dict(), path)
    return net


# --- 4. threshold ---------------------------------------------------------------


def stream(rng, s, kind, seconds, cond, snr, split="held"):
    """Long audio of one split's voices: everyday speech ("other"), everyday
    speech with wake decoys in half the turns ("decoy"), or everyday speech
    with the phrase said now and then ("wake": alone or followed by a
    request). Returns the audio, the ends of the phrases and the spans of
    the decoys (samples)."""
    n = int(seconds * SR)
    canvas = np.zeros(n, np.float32)
    ends, decoys = [], []
    pos = int(rng.uniform(0.2, 1.0) * SR)
    while True:
        r = rng.random()
        if kind == "wake" and r < 0.5:
            if rng.random() < 0.5:
                sp = s["kw_" + split][int(rng.integers(len(s["kw_" + split])))]
                end = len(sp)
            else:
                i = int(rng.integers(len(s["kwsent_" + split])))
                sp, end = s["kwsent_" + split][i], int(s["kwsent_end_" + split][i])
            if pos + len(sp) > n:
                break
            place(canvas, sp, pos)
            ends.append(pos + end)
        else:
            pool = "neg_" + split
            if kind == "decoy" and r < 0.5:
                pool = rng.choice(["decoy_", "decoysent_"]) + split
            sp = s[pool][int(rng.integers(len(s[pool])))]
            if pos + len(sp) > n:
                break
            place(canvas, sp, pos)
            if not pool.startswith("neg_"):
                decoys.append((pos, pos + len(sp)))
        pos += len(sp) + int(rng.uniform(0.3, 2.0) * SR)
    # The stream's background: one condition throughout, applied in pieces
    # so rooms and levels change.
    out = np.zeros(n, np.float32)
    piece = 20 * SR
    for a in range(0, n, piece):
        out[a:a + piece] = background(rng, canvas[a:a + piece].copy(), s["neg_" + split], cond=cond, snr=snr)
    return out, ends, decoys


def scores(net, x):
    """The step probabilities of a stream, as audio/wake computes them
    (model.stream_features; step j ends at model.stream_step_end_samples)."""
    net.eval()
    with torch.no_grad():
        f = torch.from_numpy(model.stream_features(x))[None]
        return torch.sigmoid(net(f))[0].numpy()


CONDITIONS = [("quiet", "none", None), ("noise 10 dB", "colour", 10), ("babble 10 dB", "babble", 10),
              ("babble 5 dB", "babble", 5), ("music 10 dB", "music", 10), ("babble+brown 5 dB", "babble+brown", 5)]
THRESHOLDS = np.round(np.arange(0.30, 0.995, 0.02), 2)


def wakes_at(p, th):
    got = model.detect(p, th, SMOOTH, REFRACTORY)
    return model.stream_step_end_samples(len(p))[got] if got else np.zeros(0, np.int64)


def choose_threshold(net, s, other_minutes, decoy_minutes, wake_minutes, conditions=CONDITIONS, seed=SEED + 7):
    """Measures every threshold on the held-out voices' streams and picks
    the lowest whose false wakes stay at most one per two hours of
    everyday speech, in all conditions together, and whose wakes on decoys
    stay at most 2 % of them."""
    rng = np.random.default_rng(seed)
    per = len(conditions)
    other, decoy, wake = [], [], []
    for name, cond, snr in conditions:
        for _ in range(max(1, round(other_minutes / per))):
            x, _, _ = stream(rng, s, "other", 60, cond, snr)
            other.append(scores(net, x))
        for _ in range(max(1, round(decoy_minutes / per))):
            x, _, spans = stream(rng, s, "decoy", 60, cond, snr)
            decoy.append((scores(net, x), spans))
        for _ in range(max(1, round(wake_minutes / per))):
            x, ends, _ = stream(rng, s, "wake", 60, cond, snr)
            wake.append((name, scores(net, x), ends))
    hours = len(other) / 60
    n_decoys = sum(len(sp) for _, sp in decoy)
    n_wake = sum(len(e) for _, _, e in wake)
    log("threshold on held-out voices: %.1f h of everyday speech, %d decoys, %d phrases" % (hours, n_decoys, n_wake))
    rows = []
    for th in THRESHOLDS:
        fa = sum(len(wakes_at(p, th)) for p in other)
        dw = 0
        for p, spans in decoy:
            at = wakes_at(p, th)
            dw += sum(bool(((at >= a) & (at <= b + SR // 2)).any()) for a, b in spans)
        hits, by = 0, {}
        for name, p, ends in wake:
            at = wakes_at(p, th)
            for e in ends:
                ok = bool(((at >= e - SR // 4) & (at <= e + int(0.8 * SR))).any())
                hits += ok
                h, t = by.get(name, (0, 0))
                by[name] = (h + ok, t + 1)
        rows.append((th, fa / hours, dw / max(1, n_decoys), hits / max(1, n_wake), by))
        log("  %.2f: %.2f false wakes/h, decoys %.1f %%, wake %.1f %% (%s)" % (
            th, fa / hours, 100 * dw / max(1, n_decoys), 100 * hits / max(1, n_wake),
            ", ".join("%s %.0f%%" % (k, 100 * h / t) for k, (h, t) in by.items())))
    ok = [r for r in rows if r[1] <= 0.5 and r[2] <= 0.02]
    chosen = ok[0] if ok else rows[-1]
    log("chosen threshold %.2f: %.2f false wakes/h, decoys %.1f %%, wake %.1f %%" % (chosen[0], chosen[1], 100 * chosen[2], 100 * chosen[3]))
    # Where a wake is decided against where the phrase ended.
    lags = []
    for _, p, ends in wake:
        at = wakes_at(p, chosen[0])
        for e in ends:
            d = at - e
            d = d[(d >= -SR // 4) & (d <= int(0.8 * SR))]
            if len(d):
                lags.append(d[0] / SR * 1000)
    lags = np.array(lags) if lags else np.zeros(1)
    log("wake decided after the phrase's end: p5 %.0f ms, p50 %.0f ms, p95 %.0f ms" % tuple(np.percentile(lags, [5, 50, 95])))
    return float(chosen[0]), float(np.percentile(lags, 50))


def decoy_report(net, th, variants, decoys=None):
    """Each decoy (data.DECOYS unless given) said by ten held-out voices,
    clean and in babble at 10 dB: how many wake."""
    rng = np.random.default_rng(SEED + 11)
    voices = [data.random_voice(rng, variants) for _ in range(10)]
    jobs = [(d, v) for d in (data.DECOYS if decoys is None else decoys) for v in voices]
    clips = data.synth_many(jobs)
    babble_pool = data.synth_many([(t, data.random_voice(rng, variants)) for t in data.SENTENCES[:40]])
    counts = {}
    for (d, _), c in zip(jobs, clips):
        for cond, snr in [("none", None), ("babble", 10)]:
            x = np.zeros(len(c) + 2 * SR, np.float32)
            place(x, c, SR)
            x = background(rng, x, babble_pool, cond=cond, snr=snr)
            woke = len(wakes_at(scores(net, x), th)) > 0
            k = counts.get(d, 0)
            counts[d] = k + woke
    bad = sorted(((v, d) for d, v in counts.items() if v), reverse=True)
    log("decoys that woke: %d of %d (each of 20: ten voices, clean and babble 10 dB): %s" % (
        sum(counts.values()), 2 * len(jobs), ", ".join("%s %d" % (d, v) for v, d in bad) or "none"))


# --- 5. weights and fixture -----------------------------------------------------


def fixture(net, wav, out):
    """What the Go side must compute from wav: the features of its first
    frames and every step's logit."""
    import wave
    with wave.open(wav) as w:
        assert w.getframerate() == SR and w.getnchannels() == 1 and w.getsampwidth() == 2
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    x = pcm.astype(np.float64) / 32768
    f = model.logmel(x)
    net.eval()
    with torch.no_grad():
        lg = net(torch.from_numpy(model.stream_features(x))[None])[0].numpy()
    with open(out, "w") as fo:
        json.dump({"wav": os.path.basename(wav), "features": [[round(float(v), 5) for v in row] for row in f[:30]],
                   "logits": [round(float(v), 5) for v in lg]}, fo)
        fo.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default="bin/wake")
    ap.add_argument("--out", default="audio/wake/model.bin")
    ap.add_argument("--fixture", default="audio/wake/testdata/parity.json")
    ap.add_argument("--fixture-wav", default="audio/testdata/hey_jibo_what_time.wav")
    ap.add_argument("--speech", type=float, default=1.0, help="how much speech to synthesise (1: about 21,000 clips)")
    ap.add_argument("--clips", type=int, default=48000)
    ap.add_argument("--epochs", type=int, default=24)
    ap.add_argument("--hard-hours", type=float, default=25, help="hours of training voices' speech to mine for hard negatives (0: none)")
    ap.add_argument("--tune-epochs", type=int, default=6)
    ap.add_argument("--other-minutes", type=float, default=150)
    ap.add_argument("--decoy-minutes", type=float, default=30)
    ap.add_argument("--wake-minutes", type=float, default=30)
    a = ap.parse_args()
    torch.set_num_threads(1)
    os.makedirs(a.work, exist_ok=True)
    # Each stage's cache is named by the options that made it and the
    # stages before it.
    k_speech = key(amount=a.speech, seed=SEED)
    k_clips = key(k_speech, clips=a.clips)
    k_net = key(k_clips, epochs=a.epochs)
    k_hard = key(k_net, hours=a.hard_hours, tune=a.tune_epochs)
    s, ends = build_speech(a.work, a.speech, name="speech-" + k_speech)
    for k, v in ends.items():
        s[k.replace("kwsent_", "kwsent_end_")] = v
    xs, ys = build_clips(a.work, s, "train", a.clips, 0.4, SEED + 2, tag="-" + k_clips)
    vx, vy = build_clips(a.work, s, "held", a.clips // 10, 0.4, SEED + 3, tag="-" + k_clips)
    log("clips: %d training, %d held out" % (len(xs), len(vx)))
    net = train(a.work, xs, ys, vx, vy, a.epochs, tag="-" + k_net)
    if a.hard_hours > 0:
        # Round 1: hard negatives of the trained network, phrases in noise.
        hard = mine(a.work, net, s, a.hard_hours, SEED + 8, name="hard-" + k_hard)
        px, py = noisy_positives(a.work, s, len(hard) // 2, SEED + 9, name="noisy-pos-" + k_hard)
        log("round 1: %d hard negatives, %d noisy phrases" % (len(hard), len(px)))
        keep = np.sort(np.random.default_rng(SEED + 10).choice(len(xs), len(xs) // 2, replace=False))
        tx = np.concatenate([xs[keep], hard, px])
        ty = np.concatenate([ys[keep], np.zeros((len(hard), ys.shape[1]), np.int8), py])
        net = finetune(a.work, net, tx, ty, vx, vy, a.tune_epochs, name="net-tuned-" + k_hard)
        del tx, ty, px, py
        # Round 2: the tuned network's own hard negatives on top, phrases
        # in noise again and far from the microphone, clips quieter and
        # louder.
        hard2 = mine(a.work, net, s, a.hard_hours, SEED + 20, name="hard-2-" + k_hard)
        px, py = noisy_positives(a.work, s, len(hard2) + len(hard) // 2, SEED + 21, name="noisy-pos-2-" + k_hard, far=0.4)
        log("round 2: %d hard negatives, %d noisy phrases" % (len(hard2), len(px)))
        keep = np.sort(np.random.default_rng(SEED + 22).choice(len(xs), len(xs) // 2, replace=False))
        tx = np.concatenate([xs[keep], hard, hard2, px])
        ty = np.concatenate([ys[keep], np.zeros((len(hard) + len(hard2), ys.shape[1]), np.int8), py])
        del xs, ys
        net = finetune(a.work, net, tx, ty, vx, vy, a.tune_epochs, name="net-tuned-2-" + k_hard, seed=SEED + 23, gain=0.3)
    # From here on the network is the one audio/wake runs: int8 weights.
    net = model.quantized(net)
    th, lag = choose_threshold(net, s, a.other_minutes, a.decoy_minutes, a.wake_minutes)
    decoy_report(net, th, data.split_variants(data.espeak_variants())[1])
    detect = {"threshold": th, "smooth": SMOOTH, "refractory": REFRACTORY, "end_lag_ms": round(lag)}
    model.export(net, a.out, detect)
    fixture(net, a.fixture_wav, a.fixture)
    log("wrote %s (%d bytes) and %s" % (a.out, os.path.getsize(a.out), a.fixture))


if __name__ == "__main__":
    main()
