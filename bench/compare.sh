#!/usr/bin/env bash
# Side-by-side training-step benchmark: `cpuft bench` against tools/pytorch_step_bench.py (HF
# DistilBertForQuestionAnswering) for the configurations of docs/performance.md's table, several
# repetitions, interleaved (cpuft, then PyTorch, per configuration and repetition) so that load drift
# hits both sides alike.
# Prints a markdown table of medians and cpuft/PyTorch ratios. Builds nothing.
#
#   PYTHON=/work/pyref/bin/python bench/compare.sh
#
# Environment (defaults in brackets):
#   CPUFT        the cpuft binary [build/cpuft]
#   PYTHON       a python with torch + transformers [python3]
#   REPS         repetitions of every run [3]
#   STEPS        timed steps per run [1]       WARMUP   warm-up steps per run [1]
#   LAYERS       encoder layers [1]: DistilBERT-base per-layer shapes, so that the whole comparison fits
#                in ~20 minutes on a 2-core machine; LAYERS=6 is the full DistilBERT-base
#   RUN_TIMEOUT  seconds one run may take before it is stopped [120]; a PyTorch configuration that
#                times out is not run again in later repetitions
#   ONLY         an extended regex: run only the configurations whose label matches
#   RESULTS      where the raw JSON lines go [a temporary file, removed at the end]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
CPUFT=${CPUFT:-$root/build/cpuft}
PYTHON=${PYTHON:-python3}
REPS=${REPS:-3}
STEPS=${STEPS:-1}
WARMUP=${WARMUP:-1}
LAYERS=${LAYERS:-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
ONLY=${ONLY:-.}

[[ -x $CPUFT ]] || { echo "compare.sh: $CPUFT is not an executable cpuft (build it, or set CPUFT)" >&2; exit 2; }
"$PYTHON" -c "import torch, transformers" 2>/dev/null ||
  { echo "compare.sh: $PYTHON cannot import torch and transformers (set PYTHON)" >&2; exit 2; }

# label|flags shared by both benches. DistilBERT-base shapes are both tools' defaults.
configs=(
  "train bf16 b8 s384 t2|--bf16 --batch 8 --seq 384 --threads 2"
  "train bf16 b32 s128 t2|--bf16 --batch 32 --seq 128 --threads 2"
  "train fp32 b8 s384 t2|--batch 8 --seq 384 --threads 2"
  "eval bf16 b64 s384 t2|--eval --bf16 --batch 64 --seq 384 --threads 2"
  "eval fp32 b64 s384 t2|--eval --batch 64 --seq 384 --threads 2"
  "train bf16 b8 s384 t1|--bf16 --batch 8 --seq 384 --threads 1"
  "train fp32 b8 s384 t1|--batch 8 --seq 384 --threads 1"
)

sides=(cpuft pytorch)
if "$PYTHON" -c "import intel_extension_for_pytorch" 2>/dev/null; then
  sides+=(ipex)
  ipex_note="installed: measured as its own column"
else
  ipex_note="not available (intel_extension_for_pytorch does not import with $PYTHON)"
fi

results=${RESULTS:-$(mktemp)}
: >"$results"
errlog=$(mktemp)
trap 'rm -f "$errlog"; [[ -n ${RESULTS:-} ]] || rm -f "$results"' EXIT

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u +%FT%TZ)
declare -A timed_out=()

# run SIDE LABEL REP FLAGS...: one run; appends its JSON line (or a failure record) to $results.
run() {
  local side=$1 label=$2 rep=$3
  shift 3
  local cmd
  case $side in
    cpuft) cmd=("$CPUFT" bench "$@") ;;
    pytorch) cmd=("$PYTHON" "$root/tools/pytorch_step_bench.py" "$@" --peak_n 0) ;;
    ipex) cmd=("$PYTHON" "$root/tools/pytorch_step_bench.py" "$@" --peak_n 0 --ipex) ;;
  esac
  echo "[$(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)] rep $rep $side: $label" >&2
  local out rc=0 t0=$SECONDS
  out=$(timeout "$RUN_TIMEOUT" "${cmd[@]}" --layers "$LAYERS" --steps "$STEPS" --warmup "$WARMUP" --json \
        2>"$errlog") || rc=$?
  if [[ $rc -eq 0 ]]; then
    printf '%s\n' "$out" | tail -n 1 |
      "$PYTHON" -c 'import json,sys; r=json.load(sys.stdin); r.update(label=sys.argv[1], who=sys.argv[2], rep=int(sys.argv[3])); print(json.dumps(r))' \
        "$label" "$side" "$rep" >>"$results"
    return
  fi
  [[ $rc -eq 124 ]] && timed_out[$side/$label]=1
  # A stopped run still tells what it got through: the PyTorch bench prints its readiness time and
  # every step time on stderr.
  "$PYTHON" - "$label" "$side" "$rep" "$rc" "$((SECONDS - t0))" "$errlog" >>"$results" <<'PY'
import json, re, sys
label, side, rep, rc, wall, errlog = sys.argv[1:]
text = open(errlog, errors="replace").read()
ready = re.findall(r"ready after ([0-9.]+) s", text)
steps = [float(x) for x in re.findall(r"step \d+: ([0-9.]+) s", text)]
last = text.strip().splitlines()[-1] if text.strip() else ""
print(json.dumps({"label": label, "who": side, "rep": int(rep), "failed": "timeout" if rc == "124" else f"exit {rc}",
                  "wall_s": float(wall), "ready_s": float(ready[0]) if ready else None, "partial_steps": steps,
                  "message": last[:200]}))
PY
}

for rep in $(seq 1 "$REPS"); do
  for entry in "${configs[@]}"; do
    label=${entry%%|*}
    flags=${entry#*|}
    [[ $label =~ $ONLY ]] || continue
    for side in "${sides[@]}"; do
      if [[ -n ${timed_out[$side/$label]:-} ]]; then
        echo "[$(date -u +%T)] rep $rep $side: $label skipped (timed out before)" >&2
        continue
      fi
      # shellcheck disable=SC2086  # flags are words on purpose
      run "$side" "$label" "$rep" $flags
    done
  done
done

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
ended=$(date -u +%FT%TZ)
"$PYTHON" - "$results" "$started $ended" "$load_before" "$load_after" "$REPS" "$STEPS" "$WARMUP" "$LAYERS" \
  "$RUN_TIMEOUT" "$ipex_note" <<'PY'
import collections, json, statistics, sys

path, started, load_before, load_after, reps, steps, warmup, layers, timeout, ipex_note = sys.argv[1:]
rows = [json.loads(line) for line in open(path) if line.strip()]
by = collections.defaultdict(list)
for r in rows:
    by[(r["label"], r["who"])].append(r)
labels = list(dict.fromkeys(r["label"] for r in rows))
sides = list(dict.fromkeys(r["who"] for r in rows))


def med(label, side, key):
    vals = [r[key] for r in by[(label, side)] if "failed" not in r and r.get(key) is not None]
    return statistics.median(vals) if vals else None


def batch_of(label):
    return int(label.split()[2][1:])


def sps_cell(label, side):
    ok = [r for r in by[(label, side)] if "failed" not in r]
    if ok:
        return f"{med(label, side, 'samples_per_s'):.3g} (n={len(ok)})"
    bad = by[(label, side)]
    if not bad:
        return "-"
    r = bad[0]
    if r["partial_steps"]:
        # A step that finished before the stop: its time bounds the step time from above.
        return f"~{batch_of(label) / min(r['partial_steps']):.3g}† ({r['failed']})"
    if r["failed"] == "timeout" and r["ready_s"] is not None:
        # No step finished: the first one took longer than the time left after set-up.
        return f"<{batch_of(label) / (r['wall_s'] - r['ready_s']):.2g}‡ (timeout)"
    return f"failed: {r['failed']} {r['message']}"


def fmt(x, spec):
    return format(x, spec) if x is not None else "-"


backends = {}
for r in rows:
    if "backend" in r:
        backends.setdefault(r["who"], r["backend"])

print(f"Measured {started.replace(' ', ' .. ')} (load average before: {load_before}; after: {load_after}); "
      f"{reps} repetitions x ({warmup} warm-up + {steps} timed steps), {layers} layers, run timeout {timeout} s.")
for side, b in backends.items():
    print(f"- {side}: {b}")
print(f"- ipex: {ipex_note}")
print()
head = ["configuration"] + [f"{s} samples/s" for s in sides]
head += ["cpuft / pytorch", "cpuft GFLOP/s", "oneDNN peak GFLOP/s", "cpuft MFU"]
head += [f"{s} GFLOP/s" for s in sides if s != "cpuft"]
head += [f"{s} peak RSS MiB" for s in sides] + ["RSS cpuft / pytorch"]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for label in labels:
    cells = [label] + [sps_cell(label, s) for s in sides]
    c, p = med(label, "cpuft", "samples_per_s"), med(label, "pytorch", "samples_per_s")
    cells.append(f"{c / p:.2f}x" if c and p else "-")
    cells.append(fmt(med(label, "cpuft", "gflops"), ".1f"))
    cells.append(fmt(med(label, "cpuft", "peak_gflops"), ".1f"))
    mfu = med(label, "cpuft", "mfu")
    cells.append(f"{100 * mfu:.1f}%" if mfu is not None else "-")
    cells += [fmt(med(label, s, "gflops"), ".1f") for s in sides if s != "cpuft"]
    cells += [fmt(med(label, s, "peak_rss_mib"), ".0f") for s in sides]
    rc, rp = med(label, "cpuft", "peak_rss_mib"), med(label, "pytorch", "peak_rss_mib")
    cells.append(f"{rc / rp:.2f}" if rc and rp else "-")
    print("| " + " | ".join(cells) + " |")

print()
for label in labels:
    if label.endswith(" t2") and label[:-1] + "1" in labels:
        one = label[:-1] + "1"
        for s in sides:
            a, b = med(one, s, "samples_per_s"), med(label, s, "samples_per_s")
            if a and b:
                print(f"- thread scaling, {s}, {label[:-3]}: 1 -> 2 threads {b / a:.2f}x, efficiency {50 * b / a:.0f}%")
print("- † from a step (possibly the warm-up step) that finished before the run was stopped.")
print("- ‡ upper bound: no step finished within the run timeout after set-up.")
PY
