#!/usr/bin/python3
"""Trains the recogniser's acceptance model (audio/sphinx/accept.json).

The model decides whether the sentence the grammar search found is acted
on: from a hypothesis's features (sphinx.HypothesisFeatures: its acoustic
score per frame, its worst word, how much of the speech its words cover,
how long its phones last, the grammar's prior, the SNR…) it estimates
the probability that the sentence is what was said, or means the same.

    scripts/train-accept.py --train TRAIN.json... --tune TUNE.json...
        [--hidden N] [--out FILE] [--cost C]

The reports are `jibod audio eval --json` reports made with the floors
off (JIBOD_SPHINX_FLOORS=0,0,0.9,0.8), so every sentence the search finds
is acted on and its features are reported: --train of the training sets
(scripts/gen-audio-testset.sh --train, scripts/gen-hearing-devset.sh
--train), which the weights are fitted on, --tune of the tuning set and
its babble and music twin, on which only the threshold is chosen: the
one where acting on a sentence pays, counting a wrong action (a command
acted on as another, everyday speech acted on) as C right commands lost
(default 3). Never the held-out or development sets.

Labels: a command whose sentence means what was said is 1, a command
heard as another command or everyday speech heard as a command is 0;
sentences no intent reads (nothing would be done) are left out.

--floor-veto V makes the recogniser also act on a sentence that passes
its confidence and coverage floors (0.8) when the model gives it at
least V, below the threshold (sphinx.AcceptModel.FloorVeto); the
threshold is chosen without it.

numpy only, fixed seeds, one thread: the same reports give the same
weights.
"""

import argparse
import json
import os
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

# The recogniser's confidence and coverage floors (core/runtime/hearing).
FLOOR = 0.8

FEATURES = [
    "mean_score", "min_word", "word_spread", "coverage", "words", "phone_frames",
    "short_word", "long_word", "inner_gaps", "word_share", "filler_score", "snr",
]


def examples(report):
    """(features, label, kind) of each file whose first sentence would act."""
    out = []
    for f in report["files"]:
        if f.get("error"):
            continue
        kind = f.get("kind")
        dec = next((d for d in f.get("decisions") or [] if d.get("sentence") and d.get("features")), None)
        if dec is None or not f.get("got"):
            continue
        if kind == "command":
            if not f.get("want"):
                continue
            label = 1 if f["correct"] else 0
        elif kind in ("other", "unknown", "decoy", "talk"):
            label = 0
        else:
            continue
        x = dec["features"]
        if len(x) != len(FEATURES):
            sys.exit("train-accept: %s: %d features, want %d" % (f["file"], len(x), len(FEATURES)))
        floors = dec["confidence"] >= FLOOR and dec["coverage"] >= FLOOR
        out.append((x, label, kind, floors))
    return out


def fit(x, y, hidden, seed, epochs=3000, l2=1e-3, lr=0.03):
    """Logistic regression (hidden 0) or one tanh hidden layer, full batch
    Adam on the mean cross entropy with classes weighed equally."""
    rng = np.random.default_rng(seed)
    n, d = x.shape
    w_pos = 0.5 / max(y.mean(), 1e-9)
    w_neg = 0.5 / max(1 - y.mean(), 1e-9)
    sw = np.where(y == 1, w_pos, w_neg)
    params = {}
    if hidden:
        params["W1"] = rng.normal(0, 1 / np.sqrt(d), (hidden, d))
        params["b1"] = np.zeros(hidden)
        params["w2"] = rng.normal(0, 1 / np.sqrt(hidden), hidden)
    else:
        params["w2"] = np.zeros(d)
    params["b2"] = np.zeros(1)
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(v) for k, v in params.items()}
    for t in range(1, epochs + 1):
        if hidden:
            h = np.tanh(x @ params["W1"].T + params["b1"])
        else:
            h = x
        z = h @ params["w2"] + params["b2"][0]
        p = 1 / (1 + np.exp(-z))
        g = sw * (p - y) / n
        grads = {"w2": h.T @ g + l2 * params["w2"], "b2": np.array([g.sum()])}
        if hidden:
            gh = np.outer(g, params["w2"]) * (1 - h * h)
            grads["W1"] = gh.T @ x + l2 * params["W1"]
            grads["b1"] = gh.sum(axis=0)
        for k in params:
            m[k] = 0.9 * m[k] + 0.1 * grads[k]
            v[k] = 0.999 * v[k] + 0.001 * grads[k] ** 2
            params[k] -= lr * (m[k] / (1 - 0.9**t)) / (np.sqrt(v[k] / (1 - 0.999**t)) + 1e-8)
    return params


def predict(params, x):
    h = np.tanh(x @ params["W1"].T + params["b1"]) if "W1" in params else x
    return 1 / (1 + np.exp(-(h @ params["w2"] + params["b2"][0])))


def standardise(x):
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    return mean, scale


def outcome(p, t, data, veto=0.0):
    """(right, as another command, everyday acted on) when a sentence is
    acted on from probability t, or from veto when the floors pass it."""
    acted = [pi >= t or (veto > 0 and fl and pi >= veto) for pi, (_, _, _, fl) in zip(p, data)]
    right = sum(1 for a, (_, y, k, _) in zip(acted, data) if a and y == 1)
    wrong_cmd = sum(1 for a, (_, y, k, _) in zip(acted, data) if a and y == 0 and k == "command")
    other = sum(1 for a, (_, y, k, _) in zip(acted, data) if a and y == 0 and k != "command")
    return right, wrong_cmd, other


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", action="append", required=True)
    ap.add_argument("--tune", action="append", required=True)
    ap.add_argument("--hidden", type=int, default=0)
    ap.add_argument("--cost", type=float, default=3.0)
    ap.add_argument("--floor-veto", type=float, default=0.0,
                    help="also act on a sentence the floors pass from this probability (0: off)")
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument("--out")
    args = ap.parse_args()
    train, tune, parts = [], [], []
    for path in args.train:
        with open(path) as f:
            train += examples(json.load(f))
    for path in args.tune:
        with open(path) as f:
            part = examples(json.load(f))
        parts.append((path, len(tune), len(tune) + len(part)))
        tune += part
    x = np.array([e[0] for e in train], dtype=float)
    y = np.array([e[1] for e in train], dtype=float)
    mean, scale = standardise(x)
    xs = (x - mean) / scale
    params = fit(xs, y, args.hidden, args.seed)
    p_train = predict(params, xs)
    print("train: %d examples, %d right; log loss %.3f" % (len(y), int(y.sum()),
          -np.mean(y * np.log(p_train + 1e-12) + (1 - y) * np.log(1 - p_train + 1e-12))), file=sys.stderr)
    xt = (np.array([e[0] for e in tune], dtype=float) - mean) / scale
    yt = np.array([e[1] for e in tune], dtype=float)
    p_tune = predict(params, xt)
    print("tune: %d examples, %d right; log loss %.3f" % (len(yt), int(yt.sum()),
          -np.mean(yt * np.log(p_tune + 1e-12) + (1 - yt) * np.log(1 - p_tune + 1e-12))), file=sys.stderr)
    best = None
    for t in np.arange(0.05, 0.96, 0.01):
        r, wc, o = outcome(p_tune, t, tune)
        gain = r - args.cost * (wc + o)
        if best is None or gain > best[0]:
            best = (gain, float(round(t, 2)), r, wc, o)
    for t in np.arange(0.1, 0.95, 0.05):
        r, wc, o = outcome(p_tune, t, tune)
        print("  threshold %.2f: tuning %d right, %d as another, %d everyday" % (t, r, wc, o), file=sys.stderr)
    print("chosen threshold %.2f: tuning %d right, %d as another, %d everyday" % best[1:], file=sys.stderr)
    if args.floor_veto > 0:
        print("with the floors' sentences from %.2f: tuning %d right, %d as another, %d everyday" %
              ((args.floor_veto,) + outcome(p_tune, best[1], tune, args.floor_veto)), file=sys.stderr)
    for path, lo, hi in parts:
        print("  %s: %d right, %d as another, %d everyday" %
              ((path,) + outcome(p_tune[lo:hi], best[1], tune[lo:hi], args.floor_veto)), file=sys.stderr)
    model = {
        "features": FEATURES,
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "out": [round(float(v), 6) for v in params["w2"]],
        "out_bias": round(float(params["b2"][0]), 6),
        "threshold": best[1],
    }
    if args.floor_veto > 0:
        model["floor_veto"] = args.floor_veto
    if "W1" in params:
        model["hidden"] = [[round(float(v), 6) for v in row] for row in params["W1"]]
        model["hidden_bias"] = [round(float(v), 6) for v in params["b1"]]
    text = json.dumps(model, indent=1) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
