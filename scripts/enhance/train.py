#!/usr/bin/env python3
"""Trains the speech enhancement network of audio/enhance and writes its weights.

    nice -n 10 /usr/bin/python3 scripts/enhance/train.py [--work bin/enhance] [--out audio/enhance/model.bin]

Needs Debian's python3-torch and python3-numpy (scripts/deps.sh --train),
espeak-ng and sox. The network hears an utterance's band energies and gives
each band of each frame a gain that keeps the dominant talker and takes out
what is not them: other talkers (babble of 2-6 espeak-ng voices), pink and
brown noise, music-like sound; clean and reverberant speech it learns to
leave alone. Steps (speech and mixtures cached in --work, each named by a
digest of what makes it, so a cached run makes what a run from scratch
does):

1. speech: espeak-ng sentences (scripts/wake/data.py's everyday sentences,
   requests, generated sentences and word salad) in two disjoint sets of
   espeak-ng voices, one for the talker, one for the babble; no variant that
   any test set script (scripts/gen-*.sh) uses is in either;
2. 2400 mixtures (and 200 for validation) from a seeded generator: the talker
   (other speeds, microphones, rooms) inside a 3.5 s clip over one of the
   backgrounds at -3..20 dB SNR, or nearly clean; the target gain of a band
   is sqrt(S / (S + N)) from the talker's and the background's own
   energies in it;
3. training (Adam, fixed steps, the step with the best validation loss kept), then the weights written as int8 with a
   float32 scale per row, and the parity fixture (audio/enhance/testdata)
   the Go tests compare their gains with, computed by this script's numpy
   forward pass of the stored weights.

torch runs on one thread (a shared machine); a rerun on the same espeak-ng,
sox, numpy and torch makes the same weights.
"""

import argparse
import hashlib
import json
import os
import re
import struct
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "wake"))
import data  # noqa: E402

SR = data.SR
SEED = 20261128
NFFT = 512
HOP = 256
BINS = NFFT // 2 + 1
BANDS = 32
CH = 64
DILATIONS = [2, 4, 8]
EPS = 1e-7
CLIP = int(3.5 * SR)
MAGIC = b"JIBOENH1"


# --- features (audio/enhance/features.go does the same) ----------------------


def window():
    i = np.arange(NFFT)
    return np.sqrt(0.5 - 0.5 * np.cos(2 * np.pi * i / NFFT))


def band_weights():
    """Each bin's share of the bands whose centres, evenly spaced on the mel
    scale from 0 Hz to Nyquist, lie either side of it: two weights summing
    to one. Band energies add the bins' power so weighted; a bin's gain is
    its bands' gains so weighted."""
    mel = lambda f: 2595 * np.log10(1 + f / 700.0)  # noqa: E731
    imel = lambda m: 700 * (10 ** (m / 2595.0) - 1)  # noqa: E731
    centres = imel(np.linspace(0, mel(SR / 2), BANDS)) * NFFT / SR  # in bins
    w = np.zeros((BINS, BANDS))
    for k in range(BINS):
        b = int(np.searchsorted(centres, k, side="right")) - 1
        b = min(max(b, 0), BANDS - 2)
        t = (k - centres[b]) / (centres[b + 1] - centres[b])
        t = min(max(t, 0.0), 1.0)
        w[k, b] += 1 - t
        w[k, b + 1] += t
    return w


W = band_weights()
WIN = window()


def stft(x):
    n = (len(x) - NFFT) // HOP + 1
    idx = np.arange(NFFT)[None, :] + HOP * np.arange(n)[:, None]
    return np.fft.rfft(x[idx] * WIN, axis=1)


def band_energy(spec):
    return (np.abs(spec) ** 2) @ W


def features(e):
    """Log band energies less the utterance's level: the mean log energy of
    its louder half of frames (a frame's log energy is its bands' mean)."""
    le = np.log(e + EPS)
    frame = le.mean(axis=1)
    med = np.sort(frame)[len(frame) // 2]
    level = frame[frame >= med].mean()
    return (le - level).astype(np.float32)


# --- speech ------------------------------------------------------------------


def test_variants():
    """Every espeak-ng variant a test set script names."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    out = set()
    for name in os.listdir(here):
        if name.startswith("gen-") and name.endswith(".sh"):
            with open(os.path.join(here, name)) as f:
                out |= set(re.findall(r"en-[a-z0-9-]*\+([A-Za-z0-9]+)", f.read()))
    return out


def voice(rng, variants):
    return {"voice": rng.choice(data.BASE_VOICES) + "+" + rng.choice(variants),
            "speed": int(rng.integers(120, 221)), "pitch": int(rng.integers(15, 86)),
            "gap": int(rng.choice([0, 0, 0, 1, 2]))}


def make_speech(work, rng):
    """The talker and babble clips. What is said by whom is drawn from rng
    whether or not the audio is cached, so rng is left the same either
    way; the cache is named by a digest of that list."""
    banned = test_variants()
    variants = [v for v in data.espeak_variants() if v not in banned]
    talk_v = [v for i, v in enumerate(variants) if i % 2 == 0]
    babble_v = [v for i, v in enumerate(variants) if i % 2 == 1]
    words = data.dictionary_words("/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict")
    sentences = data.SENTENCES + data.REQUESTS + data.generated_sentences(rng, 250)
    if words:
        sentences += data.word_salad(rng, words, 150)
    talk_jobs = [(s, voice(rng, talk_v)) for s in sentences for _ in range(2)]
    babble_jobs = [(s, voice(rng, babble_v)) for s in sentences]
    path = os.path.join(work, "speech-%s.npz" % digest([talk_jobs, babble_jobs]))
    if os.path.exists(path):
        z = np.load(path, allow_pickle=True)
        return list(z["talk"]), list(z["babble"])
    print("speech: %d sentences, %d talker and %d babble variants" % (len(sentences), len(talk_v), len(babble_v)), flush=True)
    t0 = time.time()
    talk = data.synth_many(talk_jobs, threads=2)
    babble = data.synth_many(babble_jobs, threads=2)
    talk = [x for x in talk if len(x) > SR // 2]
    babble = [x for x in babble if len(x) > SR // 2]
    print("speech: %d talker and %d babble clips in %.0f s" % (len(talk), len(babble), time.time() - t0), flush=True)
    os.makedirs(work, exist_ok=True)
    np.savez(path, talk=np.array(talk, dtype=object), babble=np.array(babble, dtype=object))
    return talk, babble


def digest(v):
    """A short digest of v (JSON-able): names a cached file by what made it."""
    return hashlib.sha1(json.dumps(v, sort_keys=True, default=str).encode()).hexdigest()[:10]


# --- mixtures ----------------------------------------------------------------


def background(rng, pool, n):
    r = rng.random()
    if r < 0.45:
        return data.babble(rng, pool, n, int(rng.integers(2, 7)))
    if r < 0.6:
        return data.coloured_noise(rng, n, rng.choice(["pink", "brown", "white"]))
    if r < 0.8:
        return data.music(rng, n)
    b = data.babble(rng, pool, n, int(rng.integers(2, 5)))
    c = data.coloured_noise(rng, n, rng.choice(["pink", "brown"]))
    return (b + c * rng.uniform(0.3, 1.0)) / 1.5


def mixture(rng, talk, pool):
    """A clip, its talker alone and its background alone, as they were mixed."""
    x = talk[int(rng.integers(len(talk)))]
    if rng.random() < 0.3:
        x = data.speed(x, rng.uniform(0.9, 1.1))
    if rng.random() < 0.5:
        x = data.equalise(rng, x, lowpass=rng.uniform(3500, 8000) if rng.random() < 0.3 else None)
    if rng.random() < 0.25:
        x = data.convolve(x, data.room(rng, rng.uniform(0.2, 0.9), rng.uniform(0.5, 3.0)))
    s = np.zeros(CLIP, dtype=np.float32)
    at = int(rng.uniform(0.1, 1.0) * SR)
    k = min(len(x), CLIP - at)
    s[at:at + k] = x[:k]
    level = data.rms_active(x)
    if rng.random() < 0.15:
        # Nearly clean: the network must leave it be.
        n = data.coloured_noise(rng, CLIP, rng.choice(["pink", "white"])) * level * 10 ** (-rng.uniform(40, 70) / 20)
    else:
        snr = rng.uniform(-3, 20)
        n = background(rng, pool, CLIP) * level / 10 ** (snr / 20)
    g = 10 ** (rng.uniform(-35, -1) / 20) / (np.abs(s + n).max() + 1e-9)
    s, n = (s * g).astype(np.float32), (n * g).astype(np.float32)
    # The recording is 16-bit: what is under its step is not heard.
    m = np.round((s + n) * 32768) / 32768
    return m.astype(np.float32), s, n


def batch(rng, talk, pool, size):
    feats, targets = [], []
    for _ in range(size):
        m, s, n = mixture(rng, talk, pool)
        es, en = band_energy(stft(s)), band_energy(stft(n))
        feats.append(features(band_energy(stft(m))))
        targets.append(np.sqrt(es / (es + en + 1e-12)).astype(np.float32))
    return torch.from_numpy(np.stack(feats)), torch.from_numpy(np.stack(targets))


# --- network -----------------------------------------------------------------


class Net(torch.nn.Module):
    """Convolutions over time, looking 16 frames (256 ms) either way: a
    first layer of width 5, three of width 3 dilated 2, 4 and 8 with
    residual connections, and a 1x1 layer giving each band's gain."""

    def __init__(self):
        super().__init__()
        self.c0 = torch.nn.Conv1d(BANDS, CH, 5, padding=2)
        self.cs = torch.nn.ModuleList([torch.nn.Conv1d(CH, CH, 3, padding=d, dilation=d) for d in DILATIONS])
        self.out = torch.nn.Conv1d(CH, BANDS, 1)

    def forward(self, f):
        h = torch.relu(self.c0(f.transpose(1, 2)))
        for c in self.cs:
            h = h + torch.relu(c(h))
        return torch.sigmoid(self.out(h)).transpose(1, 2)


def tensors(net):
    """The stored tensors in file order: (name, array, quantised); a
    convolution's weight as [out][in * width]."""
    sd = {k: v.detach().numpy().astype(np.float64) for k, v in net.state_dict().items()}
    flat = lambda w: w.reshape(w.shape[0], -1)  # noqa: E731
    out = [("c0.w", flat(sd["c0.weight"]), True), ("c0.b", sd["c0.bias"], False)]
    for i in range(len(DILATIONS)):
        out += [("c%d.w" % (i + 1), flat(sd["cs.%d.weight" % i]), True), ("c%d.b" % (i + 1), sd["cs.%d.bias" % i], False)]
    out += [("out.w", flat(sd["out.weight"]), True), ("out.b", sd["out.bias"], False)]
    return out


def quantise(w):
    scale = np.abs(w).max(axis=1) / 127.0
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32)
    q = np.clip(np.round(w / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale


def to_bytes(net):
    """MAGIC, a little-endian uint32 header length, the JSON header, then
    each tensor: a matrix as its rows' float32 scales and its int8 values
    row by row, a vector as float32."""
    hdr = {"format": 1, "sample_rate": SR, "nfft": NFFT, "hop": HOP, "bands": BANDS,
           "channels": CH, "dilations": DILATIONS, "eps": EPS, "tensors": []}
    body = b""
    for name, w, q in tensors(net):
        if q:
            qi, scale = quantise(w)
            hdr["tensors"].append({"name": name, "rows": w.shape[0], "cols": w.shape[1], "dtype": "i8"})
            body += scale.astype("<f4").tobytes() + qi.tobytes()
        else:
            hdr["tensors"].append({"name": name, "rows": w.shape[0], "cols": 1, "dtype": "f32"})
            body += w.astype("<f4").tobytes()
    h = json.dumps(hdr, separators=(",", ":")).encode()
    return MAGIC + struct.pack("<I", len(h)) + h + body


def stored(net):
    """The weights as the Go side reads them (dequantised)."""
    out = {}
    for name, w, q in tensors(net):
        if q:
            qi, scale = quantise(w)
            out[name] = qi.astype(np.float32) * scale[:, None]
        else:
            out[name] = w.astype(np.float32)
    return out


def conv(x, w, b, width, dilation):
    """x [T][in] convolved over time with zeros beyond its ends."""
    T, cin = x.shape
    w = w.reshape(len(b), cin, width)
    pad = dilation * (width - 1) // 2
    xp = np.concatenate([np.zeros((pad, cin), np.float32), x, np.zeros((pad, cin), np.float32)])
    y = np.tile(b, (T, 1)).astype(np.float32)
    for j in range(width):
        y += xp[j * dilation:j * dilation + T] @ w[:, :, j].T
    return y


def np_forward(p, f):
    """The network on one utterance's features with numpy, as Go runs it."""
    h = np.maximum(conv(f, p["c0.w"], p["c0.b"], 5, 1), 0)
    for i, d in enumerate(DILATIONS):
        h = h + np.maximum(conv(h, p["c%d.w" % (i + 1)], p["c%d.b" % (i + 1)], 3, d), 0)
    return 1 / (1 + np.exp(-conv(h, p["out.w"], p["out.b"], 1, 1)))


def dataset(work, name, seed, talk, pool, n):
    """n mixtures from a generator seeded with seed, cached under a name
    naming the seed, the count and the speech they are made of."""
    speech = digest([len(talk), len(pool), [len(x) for x in talk[:50]], [len(x) for x in pool[:50]]])
    path = os.path.join(work, "%s-%s.npz" % (name, digest([seed, n, CLIP, speech])))
    if os.path.exists(path):
        z = np.load(path)
        return torch.from_numpy(z["f"]), torch.from_numpy(z["y"])
    t0 = time.time()
    rng = np.random.default_rng(seed)
    fs, ys = [], []
    for _ in range(0, n, 100):
        f, y = batch(rng, talk, pool, 100)
        fs.append(f)
        ys.append(y)
    f, y = torch.cat(fs), torch.cat(ys)
    np.savez(path, f=f.numpy(), y=y.numpy())
    print("%s: %d clips in %.0f s" % (name, n, time.time() - t0), flush=True)
    return f, y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="bin/enhance")
    ap.add_argument("--out", default="audio/enhance/model.bin")
    ap.add_argument("--fixture", default="audio/enhance/testdata/parity.json")
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--clips", type=int, default=2400)
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    talk, pool = make_speech(args.work, rng)
    val = dataset(args.work, "val", SEED + 1, talk, pool, 200)
    trainset = dataset(args.work, "train", SEED + 3, talk, pool, args.clips)
    net = Net()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.steps, pct_start=0.1)
    best, best_state = 1e9, None
    t0 = time.time()
    n = len(trainset[0])
    for step in range(1, args.steps + 1):
        idx = torch.from_numpy(rng.integers(0, n, args.batch))
        f, y = trainset[0][idx], trainset[1][idx]
        loss = torch.mean((net(f) - y) ** 2)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()
        sched.step()
        if step % 200 == 0 or step == args.steps:
            with torch.no_grad():
                vl = float(torch.mean((net(val[0]) - val[1]) ** 2))
            print("step %d loss %.4f val %.4f (%.0f s)" % (step, float(loss), vl, time.time() - t0), flush=True)
            if vl < best:
                best, best_state = vl, {k: v.clone() for k, v in net.state_dict().items()}
    net.load_state_dict(best_state)
    b = to_bytes(net)
    with open(args.out, "wb") as fo:
        fo.write(b)
    print("weights: %s, %d bytes, validation %.4f" % (args.out, len(b), best), flush=True)
    # The parity fixture: a short mixture, its features and the stored
    # weights' gains.
    m, _, _ = mixture(np.random.default_rng(SEED + 2), talk, pool)
    m = m[: SR * 2]
    pcm = np.round(m * 32768).clip(-32768, 32767).astype(np.int16)
    f = features(band_energy(stft(pcm.astype(np.float64) / 32768)))
    g = np_forward(stored(net), f)
    with torch.no_grad():
        gt = net(torch.from_numpy(f)[None])[0].numpy()
    print("parity: numpy (stored weights) against torch: max |gain difference| %.4f" % np.abs(g - gt).max())
    os.makedirs(os.path.dirname(args.fixture), exist_ok=True)
    with open(args.fixture, "w") as fo:
        json.dump({"pcm": pcm.tolist(), "features": np.round(f, 5).tolist(), "gains": np.round(g, 5).tolist()}, fo)


if __name__ == "__main__":
    main()
