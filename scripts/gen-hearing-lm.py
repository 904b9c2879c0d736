#!/usr/bin/env python3
"""Builds the open-vocabulary pass's language model (docs/hearing.md).

    scripts/gen-hearing-lm.py CORPUS OUT.arpa

CORPUS is text, one sentence a line ('#' starts a comment): what people
say to a home robot, the requests of its skills in many wordings, and
everyday speech it must not take for a request. OUT is a trigram model in
ARPA format with absolute discounting (D = 0.5) and backing off, which
pocketsphinx reads. Deterministic: the same corpus gives the same bytes.
Only Python's standard library (Debian's python3).
"""
import math
import re
import sys
from collections import defaultdict

D = 0.5


def sentences(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip().lower()
            line = line.replace("'", "")
            words = re.findall(r"[a-z]+", line)
            if words:
                out.append(["<s>"] + words + ["</s>"])
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gen-hearing-lm.py CORPUS OUT.arpa")
    sents = sentences(sys.argv[1])
    if not sents:
        sys.exit("gen-hearing-lm: the corpus has no sentence")
    c1, c2, c3 = defaultdict(int), defaultdict(int), defaultdict(int)
    for s in sents:
        for i, w in enumerate(s):
            c1[w] += 1
            if i >= 1:
                c2[(s[i - 1], w)] += 1
            if i >= 2:
                c3[(s[i - 2], s[i - 1], w)] += 1
    vocab = sorted(c1)
    # Unigrams: discounted counts, the mass taken spread evenly (add-D).
    total = sum(c for w, c in c1.items() if w != "<s>")
    n = len(vocab) - 1
    p1 = {w: (c1[w] + D) / (total + D * n) for w in vocab if w != "<s>"}
    # Bigrams.
    hist2 = defaultdict(int)
    follow2 = defaultdict(list)
    for (v, w), c in c2.items():
        hist2[v] += c
        follow2[v].append(w)
    p2 = {}
    for (v, w), c in c2.items():
        p2[(v, w)] = (c - D) / hist2[v]
    bo1 = {}
    for v, ws in follow2.items():
        left = 1 - sum(p2[(v, w)] for w in ws)
        lower = 1 - sum(p1[w] for w in ws)
        bo1[v] = left / lower if lower > 0 else 1.0

    def prob2(v, w):
        if (v, w) in p2:
            return p2[(v, w)]
        return bo1.get(v, 1.0) * p1[w]

    # Trigrams.
    hist3 = defaultdict(int)
    follow3 = defaultdict(list)
    for (u, v, w), c in c3.items():
        hist3[(u, v)] += c
        follow3[(u, v)].append(w)
    p3 = {k: (c - D) / hist3[k[:2]] for k, c in c3.items()}
    bo2 = {}
    for (u, v), ws in follow3.items():
        left = 1 - sum(p3[(u, v, w)] for w in ws)
        lower = 1 - sum(prob2(v, w) for w in ws)
        bo2[(u, v)] = left / lower if lower > 0 else 1.0

    lg = lambda x: math.log10(x) if x > 0 else -99.0
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write("\\data\\\n")
        f.write(f"ngram 1={len(vocab)}\nngram 2={len(p2)}\nngram 3={len(p3)}\n\n")
        f.write("\\1-grams:\n")
        for w in vocab:
            p = -99.0 if w == "<s>" else lg(p1[w])
            f.write(f"{p:.4f} {w} {lg(bo1.get(w, 1.0)):.4f}\n")
        f.write("\n\\2-grams:\n")
        for (v, w) in sorted(p2):
            f.write(f"{lg(p2[(v, w)]):.4f} {v} {w} {lg(bo2.get((v, w), 1.0)):.4f}\n")
        f.write("\n\\3-grams:\n")
        for (u, v, w) in sorted(p3):
            f.write(f"{lg(p3[(u, v, w)]):.4f} {u} {v} {w}\n")
        f.write("\n\\end\\\n")
    print(f"gen-hearing-lm: {len(sents)} sentences, {len(vocab)} words, "
          f"{len(p2)} bigrams, {len(p3)} trigrams in {sys.argv[2]}", file=sys.stderr)


main()
