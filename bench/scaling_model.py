#!/usr/bin/env python3
"""The scaling model of docs/scaling.md, fitted to the measurements of bench/scaling.sh.

One data-parallel step of a rank: forward, then backward, during which each gradient range becomes
ready at the time the measured profile says (`cpuft bench --json`: ready_profile); the trainer's buckets
(cut from the end of the gradient arena; the word-embedding rows the step's batches touched as one
more) go out as they fill; the link carries them one after another; the step waits after backward
for the last one, then clips and runs AdamW. Per bucket of b bytes on P ranks (Open MPI's ring, which
cpuft asks for): 2 (P - 1) / P * b / B + 2 (P - 1) * alpha.

Fitted here: B (bytes/s the link and the MPI carry) and alpha (the cost of one ring step) per link
rate, from the "alone" sums of 3 bucket sizes x 2 dtypes on 2 ranks (least squares); the model then
replays each measured run's own profile and is compared with the exposed time measured (without the
wait for the slowest rank). Projected: the reference job (2 ranks x batch 8 per 32-core Sapphire Rapids
node at 57 samples/s per node) on 4, 8 and 16 nodes: the measured 6-layer profile scaled to its step
(16 / 57 s), B = the fitted link efficiency x the nominal rate, alpha as fitted, and the word rows the
ranks' batches touch counted on real SQuAD windows (BERT WordPiece, 384 tokens).

  python3 bench/scaling_model.py RESULTS.jsonl [--profile SIX_LAYER.json] [--squad TRAIN.json]
"""
import argparse
import collections
import json
import os
import random
import statistics
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HIDDEN, VOCAB = 768, 30522
REF_STEP_S = 16 / 57.0  # the reference node: 2 ranks x batch 8 at 57 samples/s


def load(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    return [r for r in rows if "failed" not in r]


def median_runs(rows):
    by = collections.defaultdict(list)
    for r in rows:
        by[(r["rate"], r["allreduce_dtype"], r["bucket_size_mb"], r["layers"])].append(r)
    return by


def rate_bytes_per_s(rate):
    if rate == "none":
        return None
    n, unit = int(rate[:-4].rstrip("kmg")), rate[-4]
    return n * {"k": 1e3, "m": 1e6, "g": 1e9}[unit] / 8


def lstsq2(xs, ys):
    """y = a * x0 + c * x1, least squares over the points."""
    s00 = sum(x[0] * x[0] for x in xs)
    s01 = sum(x[0] * x[1] for x in xs)
    s11 = sum(x[1] * x[1] for x in xs)
    t0 = sum(x[0] * y for x, y in zip(xs, ys))
    t1 = sum(x[1] * y for x, y in zip(xs, ys))
    det = s00 * s11 - s01 * s01
    return (t0 * s11 - t1 * s01) / det, (s00 * t1 - s01 * t0) / det


def fit_links(by):
    """Per (rate, dtype): alone = buckets * (2 alpha) + bytes / B on 2 ranks (the ring's 2 steps; each rank
    sends what it sums). dtypes apart: bf16 costs a conversion and a slower sum per byte on these CPUs.
    alpha falls back to the measured 8-byte allreduce when the fit leaves it below that."""
    links = {}
    for rate, dtype in sorted({(k[0], k[1]) for k in by}):
        xs, ys, small = [], [], []
        for key, rs in by.items():
            if key[:2] != (rate, dtype):
                continue
            for r in rs:
                xs.append((r["buckets"], r["allreduce_mb_per_step"] * 1e6))
                ys.append(r["allreduce_alone_s"])
                small.append(r["allreduce_8b_s"])
        if len({x[0] for x in xs}) < 2:
            continue  # one bucket count: the two terms cannot be told apart
        per_bucket, per_byte = lstsq2(xs, ys)
        links[(rate, dtype)] = {"alpha": max(per_bucket / 2, statistics.median(small)), "B": 1 / per_byte,
                                "points": len(xs)}
    return links


def buckets_of(run, bucket_mb):
    """(ready time, bytes on the wire) per bucket, from a run's ready profile, as GradBuckets cuts them."""
    wire = 2 if run["allreduce_dtype"] == "bf16" else 4
    marks = run["ready_profile"]["ready"]
    n = sum(f for _, f in marks)
    rows_floats = VOCAB * HIDDEN  # the word embeddings: the start of the arena, summed as rows
    touched = run["allreduce_mb_per_step"] * 1e6 / wire - (n - rows_floats)
    elems = int(bucket_mb * 1024 * 1024) // 4
    # Marks come last-first: after the k-th mark, the arena from (n - covered) to n is ready.
    covered, ready_at = 0, []
    for t, f in marks:
        covered += f
        ready_at.append((covered, t))

    def time_ready(distance_from_end):
        for c, t in ready_at:
            if c >= distance_from_end:
                return t
        return marks[-1][0]

    out, end = [], n
    while end > rows_floats:
        begin = max(rows_floats, end - elems)
        out.append((time_ready(n - begin), (end - begin) * wire))
        end = begin
    out.append((marks[-1][0], touched * wire))
    return out


def simulate(buckets, backward_end, ranks, B, alpha):
    """Exposed seconds after backward and the total time some bucket is on the link."""
    free, busy = 0.0, 0.0
    for ready, size in sorted(buckets):
        t = 2 * (ranks - 1) / ranks * size / B + 2 * (ranks - 1) * alpha
        start = max(ready, free)
        free = start + t
        busy += t
    return max(0.0, free - backward_end), busy


# --- distinct word rows in a global batch of real SQuAD windows --------------------------------------

def wordpiece_tokenizer(vocab_path):
    vocab = {w.rstrip("\n"): i for i, w in enumerate(open(vocab_path, encoding="utf-8"))}

    def basic(text):
        text = unicodedata.normalize("NFD", text.lower())
        text = "".join(c for c in text if unicodedata.category(c) != "Mn")
        out, word = [], ""
        for c in text:
            if c.isspace():
                if word:
                    out.append(word)
                word = ""
            elif unicodedata.category(c).startswith("P") or (33 <= ord(c) <= 47) or (58 <= ord(c) <= 64) \
                    or (91 <= ord(c) <= 96) or (123 <= ord(c) <= 126):
                if word:
                    out.append(word)
                out.append(c)
                word = ""
            else:
                word += c
        if word:
            out.append(word)
        return out

    def ids(text):
        res = []
        for w in basic(text):
            start, pieces = 0, []
            while start < len(w):
                end, cur = len(w), None
                while start < end:
                    sub = ("##" if start else "") + w[start:end]
                    if sub in vocab:
                        cur = vocab[sub]
                        break
                    end -= 1
                if cur is None:
                    pieces = [vocab["[UNK]"]]
                    break
                pieces.append(cur)
                start = end
            res.extend(pieces)
        return res

    return ids, vocab


def touched_rows(squad_path, vocab_path, windows, trials=5, seq=384):
    """Mean count of distinct token ids in `windows` random (question, context) windows of seq tokens."""
    ids, vocab = wordpiece_tokenizer(vocab_path)
    data = json.load(open(squad_path, encoding="utf-8"))
    paragraphs = [p for a in data["data"] for p in a["paragraphs"]]
    rng = random.Random(7)
    cache = {}
    counts = []
    for _ in range(trials):
        seen = {0, vocab["[CLS]"], vocab["[SEP]"]}  # padding, and the special tokens of every window
        for _ in range(windows):
            pi = rng.randrange(len(paragraphs))
            p = paragraphs[pi]
            qi = rng.randrange(len(p["qas"]))
            if pi not in cache:
                cache[pi] = ids(p["context"])
            q = ids(p["qas"][qi]["question"])[:64]
            seen.update(q)
            seen.update(cache[pi][: seq - len(q) - 3])
        counts.append(len(seen))
    return statistics.mean(counts)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--profile", help="a 6-layer bench --json line (under mpirun) for the projection")
    ap.add_argument("--squad", default=os.path.join(ROOT, "data/squad-mini/train-mini-v1.1.json"))
    ap.add_argument("--vocab", default=os.path.join(ROOT, "tests/fixtures/text/vocab.txt"))
    ap.add_argument("--link_efficiency", type=float,
                    help="share of the nominal rate the link carries [the share fitted at the slowest shaped rate]")
    a = ap.parse_args()

    rows = load(a.results)
    by = median_runs(rows)
    links = fit_links(by)
    print("## Link fit (2 ranks, alone sums: buckets x 2 alpha + bytes / B)\n")
    print("| link | grads | points | B fitted | of the rate | alpha (one ring step) |")
    print("|---|---|---|---|---|---|")
    for (rate, dtype), f in sorted(links.items(), key=lambda kv: (rate_bytes_per_s(kv[0][0]) or 1e30, kv[0][1])):
        nominal = rate_bytes_per_s(rate)
        share = f"{100 * f['B'] / nominal:.0f}%" if nominal else "-"
        print(f"| {rate if rate != 'none' else 'unshaped'} | {dtype} | {f['points']} | {f['B'] * 8 / 1e9:.2f} Gbit/s "
              f"| {share} | {1e3 * f['alpha']:.3f} ms |")

    print("\n## The model against the measurements (2 ranks; medians; exposed without the wait for the slowest rank)\n")
    print("| link | layers | grads | bucket MB | exposed measured ms | exposed model ms | allreduce model ms |")
    print("|---|---|---|---|---|---|---|")
    for key in sorted(by, key=lambda k: (k[3], rate_bytes_per_s(k[0]) or 1e30, k[1], k[2])):
        rs = by[key]
        rate, dtype, bucket, layers = key
        if (rate, dtype) not in links:
            continue
        link = links[(rate, dtype)]
        measured = statistics.median(r["allreduce_exposed_s"] - r["straggler_s"] for r in rs)
        sims = [simulate(buckets_of(r, bucket), r["ready_profile"]["backward_end_s"], 2, link["B"], link["alpha"])
                for r in rs]
        model = statistics.median(x[0] for x in sims)
        busy = statistics.median(x[1] for x in sims)
        print(f"| {rate if rate != 'none' else 'unshaped'} | {layers} | {dtype} | {bucket:g} | {1e3 * measured:.0f} "
              f"| {1e3 * model:.0f} | {1e3 * busy:.0f} |")

    if not a.profile:
        return
    prof = json.loads(open(a.profile).read().strip().splitlines()[-1])
    scale = REF_STEP_S / prof["local_step_s"]
    # The link's efficiency: f32 at the slowest shaped rate (where the link, not these CPUs, is the limit).
    shaped = [k for k in links if k[1] == "f32" and rate_bytes_per_s(k[0])]
    ref_rate = min(shaped, key=lambda k: rate_bytes_per_s(k[0]))[0] if shaped else None
    eta = links[(ref_rate, "f32")]["B"] / rate_bytes_per_s(ref_rate) if ref_rate else 0.9
    if a.link_efficiency:
        eta = a.link_efficiency
    alpha = links[(ref_rate, "f32")]["alpha"] if ref_rate else 50e-6
    print(f"\n## Projection: the reference job (2 ranks x batch 8 per node, {REF_STEP_S:.3f} s per step)\n")
    print(f"Profile: {prof['layers']} layers measured here, one-rank step {prof['local_step_s']:.2f} s, scaled "
          f"x{scale:.4f}; link efficiency {100 * eta:.0f}% of the rate{' (given)' if a.link_efficiency else ''} and "
          f"alpha {1e3 * alpha:.2f} ms per ring step (fitted at {ref_rate}); word rows counted on {os.path.basename(a.squad)}.\n")
    print("| nodes | ranks | link | grads | bucket MB | word rows | MB per step | allreduce ms | exposed ms | hidden "
          "| efficiency | samples/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows_cache = {}
    for nodes in (4, 8, 16):
        ranks = 2 * nodes
        if ranks not in rows_cache:
            rows_cache[ranks] = touched_rows(a.squad, a.vocab, 8 * ranks)
        touched = rows_cache[ranks]
        for gbit in (25, 100):
            B = eta * gbit * 1e9 / 8
            for dtype in ("f32", "bf16"):
                for bucket in (25,):
                    wire = 2 if dtype == "bf16" else 4
                    run = dict(prof, allreduce_dtype=dtype)
                    n = sum(f for _, f in prof["ready_profile"]["ready"])
                    run["allreduce_mb_per_step"] = ((n - VOCAB * HIDDEN) + touched * HIDDEN) * wire / 1e6
                    run["ready_profile"] = {"ready": [(t * scale, f) for t, f in prof["ready_profile"]["ready"]]}
                    bwd_end = prof["ready_profile"]["backward_end_s"] * scale
                    exposed, busy = simulate(buckets_of(run, bucket), bwd_end, ranks, B, alpha)
                    eff = REF_STEP_S / (REF_STEP_S + exposed)
                    print(f"| {nodes} | {ranks} | {gbit} Gbit/s | {dtype} | {bucket} | {touched:.0f} "
                          f"| {run['allreduce_mb_per_step']:.0f} | {1e3 * busy:.0f} | {1e3 * exposed:.1f} "
                          f"| {100 * (1 - exposed / busy):.1f}% | {100 * eff:.1f}% | {nodes * 57 * eff:.0f} |")


if __name__ == "__main__":
    main()
