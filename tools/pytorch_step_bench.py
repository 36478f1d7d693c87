#!/usr/bin/env python3
"""The PyTorch side of `cpuft bench`: times the same training step (forward, backward, gradient
clipping, AdamW) or forward pass of a randomly initialised Hugging Face question-answering model on
random data, and prints the same figures in the same format, so the two can be read side by side.

The flags mirror `cpuft bench`; FLOPs are counted with the same formula as src/cpuft/cli/cmd_bench.cc
(matrix products only, backward = 2x forward), so GFLOP/s compare one to one.

  /work/venvs/t215/bin/python tools/pytorch_step_bench.py --bf16 --batch 8 --seq 384 --threads 2 --steps 5
"""
import argparse
import json
import os
import resource
import statistics
import sys
import time
import traceback

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model_type", choices=["distilbert", "bert"], default="distilbert")
    p.add_argument("--hidden", type=int, default=768)
    p.add_argument("--layers", type=int, default=6)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--intermediate", type=int, default=3072)
    p.add_argument("--vocab", type=int, default=30522)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=384)
    p.add_argument("--steps", type=int, default=5, help="timed steps (after --warmup)")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--threads", type=int, default=0, help="torch threads (default: all cores of this process)")
    p.add_argument("--bf16", action="store_true", help="torch.autocast('cpu', dtype=torch.bfloat16)")
    p.add_argument("--eval", action="store_true", help="forward passes only, under torch.inference_mode")
    p.add_argument("--ipex", action="store_true", help="intel_extension_for_pytorch.optimize(model, optimizer)")
    p.add_argument("--compile", action="store_true",
                   help="torch.compile(model) with the default inductor backend (needs a C++ compiler at run "
                        "time: $CXX or g++); the optimizer and the clipping stay eager. It compiles in the first "
                        "step (the forward graph, and its backward at the first backward; tens of seconds to "
                        "minutes) and not again at a fixed shape: at DistilBERT-base's shapes (6 layers; train "
                        "b8 s384 and b32 s128, eval b64 s384; bf16 and fp32) 1 warm-up step holds the whole "
                        "compile, so --warmup must be at least 1. A graph compiled in a timed step anyway is "
                        "reported on stderr and in the JSON; a compile that fails is reported as not available "
                        "(exit status 2)")
    p.add_argument("--attn", default="sdpa", help="transformers attn_implementation (sdpa or eager)")
    p.add_argument("--peak_n", type=int, default=2048,
                   help="size of the square torch.matmul timed for the peak (0: skip; bf16 can be very slow on AVX2)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the text report")
    a = p.parse_args()
    for name in ("hidden", "layers", "heads", "intermediate", "vocab", "batch", "seq", "steps"):
        if getattr(a, name) <= 0:
            p.error(f"--{name}: found {getattr(a, name)}, expected a positive integer")
    if a.warmup < 0 or a.threads < 0 or a.peak_n < 0:
        p.error("--warmup, --threads and --peak_n must not be negative")
    if a.compile and a.warmup < 1:
        p.error(f"--warmup: found {a.warmup}, expected at least 1 with --compile (the first step compiles)")
    if a.compile and a.ipex:
        p.error("--compile and --ipex: expected one of them (each is its own column)")
    if a.hidden % a.heads != 0:
        p.error(f"--hidden: found {a.hidden}, expected a multiple of --heads ({a.heads})")
    if a.seq > 512:
        p.error(f"--seq: found {a.seq}, expected at most max_position_embeddings (512)")
    return a


def step_flops(a):
    """Matrix FLOPs of one training step (3x forward) or one forward pass: as cmd_bench.cc counts them."""
    tokens = a.batch * a.seq
    weights = a.layers * (4 * a.hidden * a.hidden + 2 * a.hidden * a.intermediate) + 2 * a.hidden
    attention = a.layers * 4.0 * a.seq * a.hidden  # QK^T and PV per token
    return (1.0 if a.eval else 3.0) * tokens * (2 * weights + attention)


def build_model(a, transformers):
    # Dropouts as in cpuft's defaults (and the HF configs): 0.1 everywhere, no dropout before the
    # BERT QA head.
    if a.model_type == "distilbert":
        config = transformers.DistilBertConfig(
            vocab_size=a.vocab, dim=a.hidden, n_layers=a.layers, n_heads=a.heads, hidden_dim=a.intermediate,
            max_position_embeddings=512, dropout=0.1, attention_dropout=0.1, qa_dropout=0.1)
    else:
        config = transformers.BertConfig(
            vocab_size=a.vocab, hidden_size=a.hidden, num_hidden_layers=a.layers, num_attention_heads=a.heads,
            intermediate_size=a.intermediate, max_position_embeddings=512, type_vocab_size=2,
            hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1)
    return transformers.AutoModelForQuestionAnswering.from_config(config, attn_implementation=a.attn)


def matmul_peak_gflops(torch, n, dtype):
    """torch.matmul GFLOP/s of an n x n x n product in `dtype`, timed as `cpuft bench` times its peak
    (src/cpuft/perf/step_flops.h RateTiming): untimed runs for half a second (at least one), then the
    median of the runs of at least a second (at least 5, at most 200)."""
    x = torch.randn(n, n).to(dtype)
    w = torch.randn(n, n).to(dtype)
    start = time.perf_counter()
    while True:
        torch.matmul(x, w)
        if time.perf_counter() - start >= 0.5:
            break
    runs = []
    start = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        torch.matmul(x, w)
        t1 = time.perf_counter()
        runs.append(t1 - t0)
        if len(runs) >= 200 or (len(runs) >= 5 and t1 - start >= 1.0):
            break
    return 2.0 * n ** 3 / statistics.median(runs) / 1e9


def one_line(e):
    """An exception as one line: torch.compile's errors span many lines and end with logging hints."""
    lines = [ln.strip() for ln in str(e).splitlines()
             if ln.strip() and "TORCHDYNAMO_VERBOSE" not in ln and "TORCH_LOGS" not in ln]
    return f"{type(e).__name__}: {' | '.join(lines[:4])}"[:400]


def compiled_graphs():
    """Graphs torch.compile has compiled so far in this process (each recompile adds one)."""
    from torch._dynamo.utils import counters
    return counters["stats"]["unique_graphs"]


def main():
    started = time.perf_counter()
    a = parse_args()
    import torch
    import transformers

    ipex = None
    if a.ipex:
        try:
            import intel_extension_for_pytorch as ipex
        except ImportError as e:
            print(f"pytorch bench: --ipex: intel_extension_for_pytorch is not available ({e})", file=sys.stderr)
            return 2

    threads = a.threads or len(os.sched_getaffinity(0))
    torch.set_num_threads(threads)
    torch.manual_seed(42)

    model = build_model(a, transformers)
    opt = None
    if a.eval:
        model.eval()
    else:
        model.train()
        # The fused CPU AdamW (torch >= 2.4) is torch's fastest; foreach where fused is missing.
        try:
            opt = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.0, fused=True)
            adamw = "fused"
        except (RuntimeError, TypeError, ValueError):
            opt = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.0, foreach=True)
            adamw = "foreach"
    if ipex is not None:
        dtype = torch.bfloat16 if a.bf16 else torch.float32
        if a.eval:
            model = ipex.optimize(model, dtype=dtype)
        else:
            model, opt = ipex.optimize(model, optimizer=opt, dtype=dtype)

    if a.compile:
        try:
            model = torch.compile(model)
        except Exception as e:  # e.g. a Python that this torch's dynamo does not support
            print(f"pytorch bench: --compile: torch.compile is not available: {one_line(e)}", file=sys.stderr)
            return 2

    g = torch.Generator().manual_seed(1234)
    ids = torch.randint(0, a.vocab, (a.batch, a.seq), generator=g)
    mask = torch.ones(a.batch, a.seq, dtype=torch.long)
    start = torch.randint(0, a.seq, (a.batch,), generator=g)
    end = torch.clamp(start + 3, max=a.seq - 1)
    inputs = {"input_ids": ids, "attention_mask": mask}
    if a.model_type == "bert":
        inputs["token_type_ids"] = torch.zeros_like(ids)

    def autocast():
        return torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.bf16)

    def train_step():
        with autocast():
            loss = model(**inputs, start_positions=start, end_positions=end).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)

    def eval_step():
        with torch.inference_mode(), autocast():
            model(**inputs)

    step = eval_step if a.eval else train_step
    print(f"pytorch bench: ready after {time.perf_counter() - started:.1f} s (imports, model, data)",
          file=sys.stderr, flush=True)
    times = []
    graphs_after_warmup = 0
    for s in range(a.warmup + a.steps):
        if a.compile and s == a.warmup:
            graphs_after_warmup = compiled_graphs()
        t0 = time.perf_counter()
        try:
            step()
        except Exception as e:
            if not (a.compile and s == 0):
                raise
            # The first step is where inductor traces, generates C++ and compiles it: a failure there is
            # the column being unavailable on this machine, not a benchmark result.
            traceback.print_exc()
            print(f"pytorch bench: --compile: torch.compile (inductor) is not available: the first step failed: "
                  f"{one_line(e)}", file=sys.stderr)
            return 2
        dt = time.perf_counter() - t0
        # One line per step on stderr, so a caller that has to stop a slow run still learns the step time.
        print(f"pytorch bench: {'warm-up' if s < a.warmup else 'timed'} step {s + 1}: {dt:.3f} s",
              file=sys.stderr, flush=True)
        if s >= a.warmup:
            times.append(dt)

    graphs_in_timed_steps = compiled_graphs() - graphs_after_warmup if a.compile else 0
    if graphs_in_timed_steps:
        print(f"pytorch bench: --compile: {graphs_in_timed_steps} graph(s) compiled during the timed steps: "
              f"their compile time is in the step times (raise --warmup)", file=sys.stderr)

    # Median as cmd_bench.cc takes it: the upper middle element for an even count.
    t = sorted(times)[len(times) // 2]
    achieved = step_flops(a) / t / 1e9
    peak_dtype = torch.bfloat16 if a.bf16 else torch.float32
    peak = matmul_peak_gflops(torch, a.peak_n, peak_dtype) if a.peak_n else None
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    variant = f"torch {torch.__version__}, transformers {transformers.__version__}, attn {a.attn}"
    if not a.eval:
        variant += f", AdamW {adamw}"
    if ipex is not None:
        variant += f", ipex {ipex.__version__}"
    if a.compile:
        variant += f", torch.compile inductor ({compiled_graphs()} graphs)"
    variant += f", cpu capability {torch.backends.cpu.get_cpu_capability()}"

    if a.json:
        print(json.dumps({
            "side": "pytorch", "mode": "eval" if a.eval else "train", "dtype": "bf16" if a.bf16 else "fp32",
            "model_type": a.model_type, "layers": a.layers, "hidden": a.hidden, "batch": a.batch, "seq": a.seq,
            "threads": torch.get_num_threads(), "steps": a.steps, "step_s": t, "samples_per_s": a.batch / t,
            "tokens_per_s": a.batch * a.seq / t, "gflops": achieved, "peak_gflops": peak,
            "mfu": achieved / peak if peak else None, "peak_rss_mib": rss_mib, "backend": variant,
            "graphs_compiled_in_timed_steps": graphs_in_timed_steps}))
        return 0
    dt = "bf16" if a.bf16 else "fp32"
    print(f"pytorch bench: {'forward' if a.eval else 'training step'} {dt}, {a.layers} layers, hidden {a.hidden}, "
          f"batch {a.batch} x seq {a.seq}, {torch.get_num_threads()} threads, {variant}")
    print(f"  step time (median of {a.steps})   {t:.3f} s")
    print(f"  samples/s                  {a.batch / t:.2f}")
    print(f"  tokens/s                   {a.batch * a.seq / t:.0f}")
    print(f"  achieved GFLOP/s           {achieved:.1f}")
    if peak:
        print(f"  torch {dt if a.bf16 else 'f32 '} matmul peak      {peak:.1f} GFLOP/s ({a.peak_n}^3, same run)")
        print(f"  share of peak (MFU)        {100.0 * achieved / peak:.1f}%")
    else:
        print("  torch matmul peak          not measured (--peak_n 0)")
    print(f"  peak RSS                   {rss_mib} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
