#!/usr/bin/env python3
"""Tokenizer and feature speed, cpuft against Hugging Face tokenizers, on the whole SQuAD v1.1 dev set.

cpuft side: the Tokenizer/* benchmarks of cpuft_microbench (bench/tokenizer_bench.cc), one thread and all
threads. HF side, in the same run on the same strings: the Rust tokenizer behind BertTokenizerFast loaded
from the same directory (tests/fixtures/text), once with TOKENIZERS_PARALLELISM=false and once with true, each
in a fresh process (the variable is read once per process):
  encode      backend_tokenizer.encode_batch(strings, add_special_tokens=False) on every question and
              every distinct context (what Tokenizer::encode does for each string);
  features    the tokenizer call of run_qa.py's prepare_*_features at (384, 128): questions lstripped,
              truncation only_second, overflowing windows, offsets, padding to max_length. run_qa's Python
              loop that turns offsets into labels / masked offsets is not timed, so HF gets the better end.
Prints a Markdown table (the one in docs/performance.md). Offline; run from anywhere:
  HF_HUB_OFFLINE=1 /work/pyref/bin/python tools/text_speed_compare.py --bench build/cpuft_microbench
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_strings(squad_path):
    with open(squad_path, encoding="utf-8") as f:
        data = json.load(f)["data"]
    questions, contexts = [], []
    for article in data:
        for para in article["paragraphs"]:
            for qa in para["qas"]:
                questions.append(qa["question"])
                contexts.append(para["context"])
    return questions, contexts


def best_seconds(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def hf_worker(args):
    """Runs in a child process with TOKENIZERS_PARALLELISM already set; prints one JSON line."""
    from transformers import BertTokenizerFast

    tok = BertTokenizerFast.from_pretrained(os.path.join(ROOT, "tests", "fixtures", "text"))
    questions, contexts = load_strings(args.squad)
    strings = questions + list(dict.fromkeys(contexts))
    backend = tok.backend_tokenizer
    encode = best_seconds(lambda: backend.encode_batch(strings, add_special_tokens=False), args.repeats)
    stripped = [q.lstrip() for q in questions]
    features = best_seconds(
        lambda: tok(stripped, contexts, truncation="only_second", max_length=384, stride=128,
                    return_overflowing_tokens=True, return_offsets_mapping=True, padding="max_length"),
        args.repeats)
    print(json.dumps({"encode_s": encode, "features_s": features, "strings": len(strings),
                      "examples": len(questions)}))


def run_hf(args, parallel):
    env = dict(os.environ, TOKENIZERS_PARALLELISM="true" if parallel else "false", HF_HUB_OFFLINE="1")
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--hf-worker", "--squad", args.squad,
                          "--repeats", str(args.repeats)], env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_cpuft(args):
    env = dict(os.environ, CPUFT_BENCH_SQUAD=args.squad,
               CPUFT_BENCH_TOKENIZER=os.path.join(ROOT, "tests", "fixtures", "text"))
    out = subprocess.run([args.bench, "--benchmark_filter=^Tokenizer/", "--benchmark_format=json",
                          f"--benchmark_repetitions={args.repeats}"],
                         env=env, cwd=ROOT, check=True, capture_output=True, text=True)
    best = {}  # (benchmark, thread argument) -> best seconds over the repetitions
    for b in json.loads(out.stdout)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        name, arg = b["run_name"].split("/")[1:3]
        seconds = b["real_time"] / 1000.0  # the benchmarks report milliseconds
        best[(name, int(arg))] = min(seconds, best.get((name, int(arg)), float("inf")))
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", default=os.path.join(ROOT, "build", "cpuft_microbench"))
    p.add_argument("--squad", default=os.path.join(ROOT, "..", "shared", "data", "squad", "dev-v1.1.json"))
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--hf-worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    args.squad = os.path.abspath(args.squad)
    if args.hf_worker:
        hf_worker(args)
        return
    cpuft = run_cpuft(args)
    hf_serial, hf_parallel = run_hf(args, False), run_hf(args, True)
    n_str, n_ex = hf_serial["strings"], hf_serial["examples"]
    print(f"{n_ex} questions, {n_str} strings (questions + distinct contexts); best of {args.repeats}; "
          f"{os.cpu_count()} CPUs")
    print("| work | cpuft 1 thread | cpuft all threads | HF PARALLELISM=false | HF PARALLELISM=true |")
    print("| --- | --- | --- | --- | --- |")

    def cell(seconds, count, unit):
        return f"{seconds:.2f} s ({count / seconds:,.0f} {unit}/s)"

    rows = [("encode every string", "Encode", n_str, "strings", "encode_s"),
            ("eval features (384, 128)", "EvalFeatures", n_ex, "examples", "features_s"),
            ("train features (384, 128)", "TrainFeatures", n_ex, "examples", "features_s")]
    for label, name, count, unit, hf_key in rows:
        print(f"| {label} | {cell(cpuft[(name, 1)], count, unit)} | {cell(cpuft[(name, 0)], count, unit)} | "
              f"{cell(hf_serial[hf_key], count, unit)} | {cell(hf_parallel[hf_key], count, unit)} |")


if __name__ == "__main__":
    main()
