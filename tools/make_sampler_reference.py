#!/usr/bin/env python3
"""Golden fixture for tests/data/sampler_test.cc: tests/fixtures/data/randperm_cases.json.

  randperm        torch.randperm(n, generator=torch.Generator().manual_seed(seed)) for several n and
                  seeds: the first 64 indices and a weighted checksum of the whole permutation
  length_grouped  transformers' get_length_grouped_indices(lengths, batch_size, generator) (what the
                  Trainer's LengthGroupedSampler yields for --group_by_length), with the generator seeded
                  as cpuft seeds an epoch, on random lengths (ties included) and edge sizes

Run offline:  HF_HUB_OFFLINE=1 python tools/make_sampler_reference.py   (torch, transformers)
"""
import json
import os
import random
import sys

import torch
from transformers.trainer_pt_utils import get_length_grouped_indices

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "data", "randperm_cases.json")


def randperm_cases():
    cases = []
    for n, seed in [(1, 0), (2, 1), (10, 42), (10, 43), (97, 7), (1000, 43), (4096, 12345), (10784, 44),
                    (88524, 42), (88524, 43), (3, 4294967295)]:
        perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist()
        weighted = sum(i * p for i, p in enumerate(perm)) % (1 << 61)
        cases.append({"n": n, "seed": seed, "head": perm[:64], "weighted_sum_mod_2_61": weighted})
    return cases


def length_grouped_cases():
    rng = random.Random(20261201)
    cases = []
    # (n, batch_size, distinct lengths): one megabatch, several, a short last one, n < 4 x batch
    # (megabatch of one batch), many ties, all lengths equal (the permutation itself).
    for n, batch, spread in [(1, 1, 5), (7, 4, 3), (40, 2, 300), (100, 8, 5), (1000, 8, 365), (1003, 16, 365),
                             (2500, 12, 40), (64, 32, 1), (5000, 16, 365)]:
        lengths = [rng.randrange(20, 20 + spread) for _ in range(n)]
        seed = rng.randrange(0, 1 << 31)
        order = get_length_grouped_indices(lengths, batch, generator=torch.Generator().manual_seed(seed))
        cases.append({"batch_size": batch, "seed": seed, "lengths": lengths, "order": [int(i) for i in order]})
    return cases


def main():
    obj = {"randperm": randperm_cases(), "length_grouped": length_grouped_cases()}
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.write("\n")
    print(f"{OUT}: {os.path.getsize(OUT)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
