#!/usr/bin/env python3
"""A training-side measure of the wake word detector in loud backgrounds,
for choosing its decision rule (never the wake set, which is a development
set and is only reported).

    nice -n 10 /usr/bin/python3 scripts/wake/loudset.py [--work bin/wake-loud] [--model audio/wake/model.bin] [--rules]

Builds, once and cached in --work, streams of espeak-ng speech by the
training variants only (data.split_variants' training side: the wake set
and the threshold's held-out streams use the held-out ones), from a fixed
seed:

- the phrase (alone, or followed by a request) among everyday speech;
- data.DECOYS and data.NEAR_MISSES (alone or before a sentence) among
  everyday speech;
- everyday speech alone (for false wakes per hour);

each in five conditions: quiet, babble of 2-4 other training-voice talkers
at 10 and 5 dB, brown noise at 10 and 5 dB (SNR against the speech's
active level, the peak level then anywhere from -35 to -1 dBFS). The
babble's talkers are other voices than the speakers'.

Then it scores every stream with --model as audio/wake runs it and prints,
per condition, where the score peaks near each phrase (item: why phrases
are missed), and with --rules what each decision rule of RULES (the mean
of the last w steps, or k of the last w steps over a threshold, k = w
being a held score) gives: wakes per condition, decoys woken, false
wakes; then the rules no worse than BASELINE on decoys and false wakes,
ranked by phrases woken in 5 dB babble.

With --hold and --threshold it also measures that held rule, and with
--write writes --model with that rule (and --end-lag-ms) in its header,
its weights unchanged: the last step of make wake-train.
"""

import argparse
import hashlib
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import model  # noqa: E402
import train  # noqa: E402

SR = data.SR
SEED = train.SEED + 5000
CONDITIONS = [("quiet", None, None), ("babble 10 dB", "babble", 10), ("babble 5 dB", "babble", 5),
              ("brown 10 dB", "brown", 10), ("brown 5 dB", "brown", 5)]


def build(work):
    path = os.path.join(work, "speech.npz")
    if os.path.exists(path):
        z = np.load(path)
        return {k: train._unpack(z, k) for k in ["kw", "kwsent", "neg", "decoy", "talk"]}, z["kwsent_end"]
    rng = np.random.default_rng(SEED)
    train_v, _ = data.split_variants(data.espeak_variants())
    # Speakers and babble talkers from disjoint halves of the training variants.
    rng.shuffle(train_v)
    spk, talk = train_v[: len(train_v) // 2], train_v[len(train_v) // 2:]
    vo = lambda vs: data.random_voice(rng, vs)  # noqa: E731
    s = {}
    s["kw"] = data.synth_many([(str(rng.choice(data.WAKE_TEXTS)), vo(spk)) for _ in range(150)])
    jobs, alone = [], []
    for _ in range(150):
        v = vo(spk)
        w = str(rng.choice(data.WAKE_TEXTS[:6]))
        jobs.append((w.rstrip("!?") + (", " if rng.random() < 0.5 else " ") + str(rng.choice(data.REQUESTS)), v))
        alone.append((w.rstrip("!?"), v))
    full, kw = data.synth_many(jobs), data.synth_many(alone)
    s["kwsent"] = full
    ends = np.array([min(len(k), len(f)) for k, f in zip(kw, full)])
    sent = data.SENTENCES + data.generated_sentences(rng, 100)
    s["neg"] = data.synth_many([(str(rng.choice(sent)), vo(spk)) for _ in range(400)])
    decoys = sorted(set(data.DECOYS + data.NEAR_MISSES))
    jobs = []
    for _ in range(300):
        d = str(rng.choice(decoys))
        if rng.random() < 0.3:
            d += (", " if rng.random() < 0.5 else " ") + str(rng.choice(sent))
        jobs.append((d, vo(spk)))
    s["decoy"] = data.synth_many(jobs)
    s["talk"] = data.synth_many([(str(rng.choice(sent + data.REQUESTS)), vo(talk)) for _ in range(300)])
    out = {}
    for k, v in s.items():
        out[k + "_pcm"], out[k + "_off"] = train._pack(v)
    np.savez(path, kwsent_end=ends, **out)
    return s, ends


def mix(rng, x, s, cond, snr):
    if cond is not None:
        n = len(x)
        if cond == "babble":
            noise = data.babble(rng, s["talk"], n, int(rng.integers(2, 5)))
        else:
            noise = data.coloured_noise(rng, n, "brown")
        x = x + noise * data.rms_active(x) / 10 ** (snr / 20)
    x = x * (10 ** (rng.uniform(-35, -1) / 20) / (np.abs(x).max() + 1e-9))
    return np.clip(np.round(x * 32768), -32768, 32767).astype(np.float32) / 32768


def stream(rng, s, ends_kw, kind, seconds, cond, snr):
    """As train.stream, from this set's pools: the audio, the phrases'
    ends and the decoys' spans."""
    n = int(seconds * SR)
    canvas = np.zeros(n, np.float32)
    ends, spans = [], []
    pos = int(rng.uniform(0.2, 1.0) * SR)
    while True:
        r = rng.random()
        if kind == "wake" and r < 0.5:
            if rng.random() < 0.5:
                sp = s["kw"][int(rng.integers(len(s["kw"])))]
                end = len(sp)
            else:
                i = int(rng.integers(len(s["kwsent"])))
                sp, end = s["kwsent"][i], int(ends_kw[i])
            if pos + len(sp) > n:
                break
            train.place(canvas, sp, pos)
            ends.append(pos + end)
        else:
            pool = "decoy" if kind == "decoy" and r < 0.5 else "neg"
            sp = s[pool][int(rng.integers(len(s[pool])))]
            if pos + len(sp) > n:
                break
            train.place(canvas, sp, pos)
            if pool == "decoy":
                spans.append((pos, pos + len(sp)))
        pos += len(sp) + int(rng.uniform(0.3, 2.0) * SR)
    out = np.zeros(n, np.float32)
    piece = 20 * SR
    for a in range(0, n, piece):
        out[a:a + piece] = mix(rng, canvas[a:a + piece].copy(), s, cond, snr)
    return out, ends, spans


def traces(work, net, tag, minutes, transform=None, only=None):
    """Every stream's step probabilities, cached by the model's digest."""
    path = os.path.join(work, "traces-%s.npz" % tag)
    if os.path.exists(path):
        z = np.load(path, allow_pickle=True)
        return z["t"].tolist()
    s, ends_kw = build(work)
    rng = np.random.default_rng(SEED + 1)
    out = []
    for name, cond, snr in CONDITIONS:
        for kind, mins in [("wake", minutes["wake"]), ("decoy", minutes["decoy"]), ("other", minutes["other"])]:
            for _ in range(mins):
                x, ends, spans = stream(rng, s, ends_kw, kind, 60, cond, snr)
                if only and name not in only:
                    continue
                if transform is not None:
                    x = transform(x)
                out.append({"cond": name, "kind": kind, "p": train.scores(net, x), "ends": ends, "spans": spans})
        train.log("traces: %s done" % name)
    np.savez(path, t=np.array(out, dtype=object))
    return out


# --- the enhancement before the detector ---------------------------------------


def enhancer(path, floor=0.2, piece=20 * SR):
    """audio/enhance's network (scripts/enhance/train.py's numpy) run on
    each piece of a stream as on an utterance: its gains, floored, on the
    spectrum, resynthesised."""
    import json
    import struct
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "enhance_train", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "enhance", "train.py"))
    enh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(enh)
    with open(path, "rb") as f:
        b = f.read()
    n = struct.unpack("<I", b[8:12])[0]
    h = json.loads(b[12:12 + n])
    off, p = 12 + n, {}
    for t in h["tensors"]:
        r, c = t["rows"], t["cols"]
        if t["dtype"] == "i8":
            sc = np.frombuffer(b[off:off + 4 * r], "<f4")
            q = np.frombuffer(b[off + 4 * r:off + 4 * r + r * c], np.int8).astype(np.float32).reshape(r, c)
            p[t["name"]] = q * sc[:, None]
            off += 4 * r + r * c
        else:
            p[t["name"]] = np.frombuffer(b[off:off + 4 * r], "<f4").astype(np.float32)
            off += 4 * r

    def one(x):
        spec = enh.stft(x)
        g = np.maximum(enh.np_forward(p, enh.features(enh.band_energy(spec))), floor)
        frames = np.fft.irfft(spec * (g @ enh.W.T), enh.NFFT, axis=1) * enh.WIN
        y = x.astype(np.float64).copy()
        out = np.zeros(len(x))
        for k in range(len(frames)):
            out[k * enh.HOP:k * enh.HOP + enh.NFFT] += frames[k]
        end = (len(frames) - 1) * enh.HOP + enh.NFFT - enh.HOP
        y[enh.HOP:end] = out[enh.HOP:end]
        return y.astype(np.float32)

    def run(x):
        return np.concatenate([one(x[a:a + piece]) for a in range(0, len(x), piece)])
    return run


# --- decision rules ------------------------------------------------------------

REFRACTORY = train.REFRACTORY


def rule_mean(p, th, w):
    """audio/wake's rule: the mean of the last w steps reaches th."""
    c = np.cumsum(np.concatenate([[0.0], p]))
    j = np.arange(len(p))
    return (c[j + 1] - c[np.maximum(0, j - w + 1)]) / w, th


def rule_count(p, th, w, k):
    """At least k of the last w steps at th or over."""
    c = np.cumsum(np.concatenate([[0], (p >= th).astype(np.int64)]))
    j = np.arange(len(p))
    return (c[j + 1] - c[np.maximum(0, j - w + 1)]).astype(np.float64), k - 0.5


def decide(score, th):
    out, last = [], -(10 ** 9)
    for j in np.nonzero(score >= th)[0]:
        if j - last > REFRACTORY:
            out.append(j)
            last = j
    return model.stream_step_end_samples(len(score))[out] if out else np.zeros(0, np.int64)


def measure(ts, fn):
    """Per condition: phrases woken (of all), decoys woken (of all), false
    wakes and minutes of everyday speech."""
    r = {}
    for t in ts:
        score, th = fn(t["p"])
        at = decide(score, th)
        c = r.setdefault(t["cond"], [0, 0, 0, 0, 0, 0])
        if t["kind"] == "wake":
            for e in t["ends"]:
                c[0] += bool(((at >= e - SR // 4) & (at <= e + int(0.8 * SR))).any())
                c[1] += 1
        elif t["kind"] == "decoy":
            for a, b in t["spans"]:
                c[2] += bool(((at >= a) & (at <= b + SR // 2)).any())
                c[3] += 1
        else:
            c[4] += len(at)
            c[5] += 1
    return r


def peaks(ts, smooth=3, th=0.9):
    """Per condition: the peak of the mean of smooth steps near each phrase
    (from 250 ms before its end to 800 ms after), for the phrases it
    leaves under th. A peak just under th is a miss another rule can
    reach; a low one is a phrase the network did not hear."""
    for name, _, _ in CONDITIONS:
        if not any(t["cond"] == name for t in ts):
            continue
        got = []
        for t in ts:
            if t["cond"] != name or t["kind"] != "wake":
                continue
            m, _ = rule_mean(t["p"], th, smooth)
            at = model.stream_step_end_samples(len(m))
            for e in t["ends"]:
                sel = (at >= e - SR // 4) & (at <= e + int(0.8 * SR))
                got.append(m[sel].max() if sel.any() else 0.0)
        got = np.array(got)
        miss = np.sort(got[got < th])
        print("%-13s %3d phrases, %3d under %.2f; their peaks: %s" % (
            name, len(got), len(miss), th, " ".join("%.2f" % v for v in miss)))


def fmt(r):
    d = sum(c[2] for c in r.values()), sum(c[3] for c in r.values())
    f, m = sum(c[4] for c in r.values()), sum(c[5] for c in r.values())
    return "  ".join("%s %d/%d d%d f%d" % (k.replace(" dB", ""), c[0], c[1], c[2], c[4]) for k, c in r.items()) + \
        "  | decoys %d/%d, false %d in %d min" % (d[0], d[1], f, m)


# The rules --rules measures: the mean of the last 1-9 steps, and k of
# the last w steps (k = w, a held score, for w 2-12; k about a half or two
# thirds of w for even w 4-12), each at thresholds 0.70-0.94.
THRESHOLDS = [round(0.70 + 0.01 * i, 2) for i in range(25)]
COUNTS = [(w, w) for w in range(2, 13)] + [(w, k) for w in range(4, 13, 2) for k in sorted({w // 2, 2 * w // 3})]


def _rules():
    out = []
    for w in range(1, 10):
        for th in THRESHOLDS:
            out.append(("mean %d >= %.2f" % (w, th), lambda p, th=th, w=w: rule_mean(p, th, w)))
    for w, k in COUNTS:
        for th in THRESHOLDS:
            name = ("hold %d" % w if k == w else "%d of %d" % (k, w)) + " >= %.2f" % th
            out.append((name, lambda p, th=th, w=w, k=k: rule_count(p, th, w, k)))
    return out


RULES = _rules()
# The rule a new one must not be worse than on decoys and false wakes.
BASELINE = "mean 3 >= 0.90"
RANK_CONDITION = "babble 5 dB"


def rank(got):
    """The rules no worse than BASELINE on decoys woken and false wakes,
    best first: most phrases woken in RANK_CONDITION, then in all
    conditions, then fewest decoys and false wakes."""
    def total(r, i):
        return sum(c[i] for c in r.values())
    base = dict(got)[BASELINE]
    ok = [(n, r) for n, r in got if total(r, 2) <= total(base, 2) and total(r, 4) <= total(base, 4)]
    return sorted(ok, key=lambda nr: (-nr[1].get(RANK_CONDITION, [0])[0], -total(nr[1], 0), total(nr[1], 2), total(nr[1], 4)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default="bin/wake-loud")
    ap.add_argument("--model", default="audio/wake/model.bin")
    ap.add_argument("--wake-minutes", type=int, default=12)
    ap.add_argument("--decoy-minutes", type=int, default=12)
    ap.add_argument("--other-minutes", type=int, default=40)
    ap.add_argument("--rules", action="store_true", help="measures every rule of RULES and ranks them")
    ap.add_argument("--hold", type=int, help="with --threshold: measures the rule that wakes when the probability "
                    "stays at the threshold or over for this many steps in a row (1-50)")
    ap.add_argument("--threshold", type=float, help="with --hold: the held rule's threshold, in (0, 1)")
    ap.add_argument("--write", help="with --hold and --threshold: writes --model, its weights unchanged, with that rule "
                    "(and --end-lag-ms) in its header, to this file")
    ap.add_argument("--end-lag-ms", type=int, help="with --write: the phrase's end to the held rule's decision, in ms "
                    "(0-1000); the model's own if not given")
    ap.add_argument("--only", action="append", help="score only this condition's streams (repeatable); the others are made and skipped")
    ap.add_argument("--enhance", help="audio/enhance's model file: the streams enhanced before the detector hears them")
    a = ap.parse_args()
    if a.hold is not None and not 1 <= a.hold <= 50:
        ap.error("--hold %d outside 1..50 steps" % a.hold)
    if a.threshold is not None and not 0 < a.threshold < 1:
        ap.error("--threshold %g outside (0, 1)" % a.threshold)
    if a.end_lag_ms is not None and not 0 <= a.end_lag_ms <= 1000:
        ap.error("--end-lag-ms %d outside 0..1000" % a.end_lag_ms)
    if (a.hold is None) != (a.threshold is None):
        ap.error("--hold and --threshold go together: the held rule is both")
    if a.write and a.hold is None:
        ap.error("--write needs the rule to write: --hold and --threshold")
    if a.end_lag_ms is not None and not a.write:
        ap.error("--end-lag-ms is written into the model file: it goes with --write")
    torch.set_num_threads(1)
    os.makedirs(a.work, exist_ok=True)
    with open(a.model, "rb") as f:
        b = f.read()
    net, det = model.from_bytes(b)
    extra = {}
    if a.only:
        extra["only"] = a.only
    if a.enhance:
        extra["enhance"] = hashlib.sha1(open(a.enhance, "rb").read()).hexdigest()
    tag = train.key(model=hashlib.sha1(b).hexdigest(), wake=a.wake_minutes, decoy=a.decoy_minutes, other=a.other_minutes,
                    seed=SEED, **extra)
    ts = traces(a.work, net, tag, {"wake": a.wake_minutes, "decoy": a.decoy_minutes, "other": a.other_minutes},
                transform=enhancer(a.enhance) if a.enhance else None, only=a.only)
    print("model: threshold %.2f, smooth %d, hold %d" % (det["threshold"], det["smooth"], det.get("hold", 0)))
    peaks(ts)
    if det.get("hold", 0) > 0:
        print("as is (hold %d): " % det["hold"] + fmt(measure(ts, lambda p: rule_count(p, det["threshold"], det["hold"], det["hold"]))))
    else:
        print("as is: " + fmt(measure(ts, lambda p: rule_mean(p, det["threshold"], det["smooth"]))))
    if a.hold is not None:
        print("hold %d >= %.2f: %s" % (a.hold, a.threshold, fmt(measure(ts, lambda p: rule_count(p, a.threshold, a.hold, a.hold)))))
        if a.write:
            d = dict(det, threshold=a.threshold, hold=a.hold, end_lag_ms=a.end_lag_ms if a.end_lag_ms is not None else det["end_lag_ms"])
            with open(a.write, "wb") as f:
                f.write(model.with_detect(b, d))
            print("wrote %s: %s" % (a.write, d))
    if not a.rules:
        return
    got = []
    for name, fn in RULES:
        r = measure(ts, fn)
        got.append((name, r))
        print("%s: %s" % (name, fmt(r)))
    print("no worse than %s on decoys and false wakes, by babble 5 dB:" % BASELINE)
    for name, r in rank(got)[:20]:
        print("  %s: %s" % (name, fmt(r)))


if __name__ == "__main__":
    main()
