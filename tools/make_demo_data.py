#!/usr/bin/env python3
"""Cuts the small SQuAD v1.1 subsets bundled in data/squad-mini/ from ../shared/data/squad
(the full SQuAD v1.1 files, kept beside the repository and not part of it; docs/parity.md, Fixtures).

Plain Python (no third-party packages). The articles are chosen by title so the selection is stable;
the JSON keeps the official layout ({"version", "data": [articles]}) and the original text byte for byte.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "shared", "data", "squad")
DST = os.path.join(HERE, "..", "data", "squad-mini")

SUBSETS = {
    "train-mini-v1.1.json": ("train-subset-v1.1.json",
                             ["University_of_Notre_Dame", "Montana", "Genocide", "Antibiotics"]),
    "dev-mini-v1.1.json": ("dev-v1.1.json", ["Normans", "Computational_complexity_theory"]),
}


def main():
    os.makedirs(DST, exist_ok=True)
    for out_name, (src_name, titles) in SUBSETS.items():
        with open(os.path.join(SRC, src_name), encoding="utf-8") as f:
            src = json.load(f)
        by_title = {a["title"]: a for a in src["data"]}
        missing = [t for t in titles if t not in by_title]
        if missing:
            sys.exit(f"{src_name}: articles not found: {missing}")
        out = {"version": src["version"], "data": [by_title[t] for t in titles]}
        with open(os.path.join(DST, out_name), "w", encoding="utf-8") as f:
            json.dump(out, f, ensure_ascii=False)
        questions = sum(len(p["qas"]) for a in out["data"] for p in a["paragraphs"])
        print(f"{out_name}: {len(titles)} articles, {questions} questions")


if __name__ == "__main__":
    main()
