#!/usr/bin/env bash
# Side-by-side step benchmark: `cpuft bench` against tools/pytorch_step_bench.py (transformers'
# DistilBertForQuestionAnswering) in four PyTorch columns, each from its own venv outside the repo:
#   pytorch28   torch 2.8 + transformers 4.x                      ($PYTHON_T28)
#   ipex28      the same venv, intel_extension_for_pytorch.optimize (--ipex)
#   pytorch215  torch 2.15 + transformers 5.x                     ($PYTHON_T215)
#   compile215  the same venv, torch.compile(model), inductor     (--compile)
# for the configurations of docs/performance.md's tables, several repetitions, interleaved (every side
# in turn, per configuration and repetition) so that load drift hits all sides alike. A column whose
# venv is missing or lacks a package is skipped, and the output says so and why; a run that reports its
# side as not available (exit status 2: IPEX that does not import, a torch.compile that fails) marks
# that cell unavailable and is not run again.
# Prints a markdown table of medians (samples/s, peak RSS, and MFU where the side measures its peak:
# cpuft), the ratio of cpuft to the best other column, and thread scaling. Builds nothing.
#
#   bench/compare.sh
#   LAYERS=6 REPS=3 STEPS=2 WARMUP=1 RUN_TIMEOUT=300 ONLY='t2$' bench/compare.sh  # the full comparison
#   LAYERS=1 STEPS=1 WARMUP=1 REPS=1 BATCH=2 SEQ=32 ONLY='t2$' bench/compare.sh   # does every column run?
#
# Environment (defaults in brackets):
#   CPUFT            the cpuft binary [build/cpuft]
#   PYTHON_T28       a python with torch 2.8, transformers and intel_extension_for_pytorch
#                    [/work/venvs/t28/bin/python]
#   PYTHON_T215      a python with torch 2.15 and transformers [/work/venvs/t215/bin/python]
#   REPS             repetitions of every run [3]
#   STEPS            timed steps per run [1]
#   WARMUP           warm-up steps per run [1]; torch.compile compiles in the first one, so with 0 its
#                    column is skipped
#   LAYERS           encoder layers [1]: DistilBERT-base per-layer shapes, so that a comparison of all
#                    the rows fits in about an hour on a 2-core machine; LAYERS=6 is the full DistilBERT-base
#   BATCH, SEQ       replace every configuration's batch size / sequence length (quick checks) [unset]
#   RUN_TIMEOUT      seconds one run may take before it is stopped [120]; a configuration that times
#                    out on a side is not run again on that side in later repetitions
#   COMPILE_TIMEOUT  extra seconds the torch.compile column's runs get for the compile [600]
#   ONLY             an extended regex: run only the configurations whose label matches
#   RESULTS          where the raw JSON lines go [a temporary file, removed at the end]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
CPUFT=${CPUFT:-$root/build/cpuft}
PYTHON_T28=${PYTHON_T28:-/work/venvs/t28/bin/python}
PYTHON_T215=${PYTHON_T215:-/work/venvs/t215/bin/python}
REPS=${REPS:-3}
STEPS=${STEPS:-1}
WARMUP=${WARMUP:-1}
LAYERS=${LAYERS:-1}
BATCH=${BATCH:-}
SEQ=${SEQ:-}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
COMPILE_TIMEOUT=${COMPILE_TIMEOUT:-600}
ONLY=${ONLY:-.}
bench_py=$root/tools/pytorch_step_bench.py

[[ -x $CPUFT ]] || { echo "compare.sh: $CPUFT is not an executable cpuft (build it, or set CPUFT)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "compare.sh: python3 (for the table) is not on PATH" >&2; exit 2; }
for name in REPS STEPS LAYERS RUN_TIMEOUT COMPILE_TIMEOUT; do
  [[ ${!name} =~ ^[1-9][0-9]*$ ]] || { echo "compare.sh: $name: found '${!name}', expected a positive integer" >&2; exit 2; }
done
[[ $WARMUP =~ ^[0-9]+$ ]] || { echo "compare.sh: WARMUP: found '$WARMUP', expected an integer" >&2; exit 2; }
for name in BATCH SEQ; do
  [[ -z ${!name} || ${!name} =~ ^[1-9][0-9]*$ ]] ||
    { echo "compare.sh: $name: found '${!name}', expected a positive integer (or unset)" >&2; exit 2; }
done

# mode dtype batch seq threads; the label is built from them. DistilBERT-base shapes are both tools' defaults.
configs=(
  "train bf16 8 384 2"
  "train bf16 32 128 2"
  "train fp32 8 384 2"
  "eval bf16 64 384 2"
  "eval fp32 64 384 2"
  "train bf16 8 384 1"
  "train fp32 8 384 1"
)

# Which PyTorch columns can run: each venv is probed; a column that cannot run is skipped with its reason.
sides=(cpuft)
declare -A title=([cpuft]=cpuft) python=()
skipped=()  # "side=why", in column order
probe_err=$(mktemp)
# probe VAR MODULES...: prints the major.minor version of the last module, or why the imports fail.
probe() {
  local py=${!1} out err
  shift
  [[ -x $py ]] || { echo "$py is not an executable"; return 1; }
  # stdout carries only the version: imports (IPEX) write warnings to stderr, even at exit.
  out=$("$py" -c 'import importlib, sys
mods = [importlib.import_module(m) for m in sys.argv[1:]]
print(".".join(mods[-1].__version__.split(".")[:2]))' "$@" 2>"$probe_err") ||
    { local rc=$?; err=$(grep . "$probe_err" | tail -n 1); echo "$py: ${err:-exit status $rc}"; return 1; }
  echo "$out"
}
add_side() {  # add_side SIDE VAR TITLE MODULES...: TITLE's %s is the last module's version
  local side=$1 var=$2 format=$3 out
  shift 3
  if out=$(probe "$var" "$@"); then
    sides+=("$side")
    python[$side]=${!var}
    # shellcheck disable=SC2059  # the title is the format
    title[$side]=$(printf "$format" "$out")
  else
    skipped+=("$side=$var=$out")
    echo "compare.sh: column $side skipped: $var=$out" >&2
  fi
}
add_side pytorch28 PYTHON_T28 "PyTorch %s" transformers torch
add_side ipex28 PYTHON_T28 "IPEX %s" torch transformers intel_extension_for_pytorch
add_side pytorch215 PYTHON_T215 "PyTorch %s" transformers torch
if [[ $WARMUP -ge 1 ]]; then
  add_side compile215 PYTHON_T215 "PyTorch %s + torch.compile" transformers torch
else
  skipped+=("compile215=WARMUP=0: torch.compile compiles in the first step, which must be a warm-up step")
  echo "compare.sh: column compile215 skipped: WARMUP=0 (torch.compile needs a warm-up step)" >&2
fi
rm -f "$probe_err"

results=${RESULTS:-$(mktemp)}
: >"$results"
errlog=$(mktemp)
trap 'rm -f "$errlog"; [[ -n ${RESULTS:-} ]] || rm -f "$results"' EXIT

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u +%FT%TZ)
declare -A stopped=()  # side/label -> why it is not run again (timeout, unavailable)

# run SIDE LABEL REP FLAGS...: one run; appends its JSON line (or a failure record) to $results.
run() {
  local side=$1 label=$2 rep=$3
  shift 3
  local cmd limit=$RUN_TIMEOUT
  case $side in
    cpuft) cmd=("$CPUFT" bench "$@") ;;
    pytorch28 | pytorch215) cmd=("${python[$side]}" "$bench_py" "$@" --peak_n 0) ;;
    ipex28) cmd=("${python[$side]}" "$bench_py" "$@" --peak_n 0 --ipex) ;;
    compile215)
      cmd=("${python[$side]}" "$bench_py" "$@" --peak_n 0 --compile)
      limit=$((RUN_TIMEOUT + COMPILE_TIMEOUT))
      ;;
  esac
  echo "[$(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)] rep $rep $side: $label" >&2
  local out rc=0 t0=$SECONDS
  out=$(timeout "$limit" "${cmd[@]}" --layers "$LAYERS" --steps "$STEPS" --warmup "$WARMUP" --json \
        2>"$errlog") || rc=$?
  if [[ $rc -eq 0 ]]; then
    printf '%s\n' "$out" | tail -n 1 |
      python3 -c 'import json,sys; r=json.load(sys.stdin); r.update(label=sys.argv[1], who=sys.argv[2], rep=int(sys.argv[3])); print(json.dumps(r))' \
        "$label" "$side" "$rep" >>"$results"
    return
  fi
  [[ $rc -eq 124 ]] && stopped[$side/$label]="timed out before"
  # The PyTorch bench exits 2 when its side cannot run here (IPEX missing, torch.compile failing).
  [[ $rc -eq 2 && $side != cpuft ]] && stopped[$side/$label]="not available"
  # A stopped run still tells what it got through: the PyTorch bench prints its readiness time and
  # every step time on stderr. The torch.compile column's first step is its compile: not a step time.
  python3 - "$label" "$side" "$rep" "$rc" "$((SECONDS - t0))" "$errlog" >>"$results" <<'PY'
import json, re, sys
label, side, rep, rc, wall, errlog = sys.argv[1:]
text = open(errlog, errors="replace").read()
ready = re.findall(r"ready after ([0-9.]+) s", text)
steps = [(int(n), float(t)) for n, t in re.findall(r"step (\d+): ([0-9.]+) s", text)]
steps = [t for n, t in steps if not (side == "compile215" and n == 1)]
last = text.strip().splitlines()[-1] if text.strip() else ""
failed = "timeout" if rc == "124" else "unavailable" if rc == "2" and side != "cpuft" else f"exit {rc}"
print(json.dumps({"label": label, "who": side, "rep": int(rep), "failed": failed, "wall_s": float(wall),
                  "ready_s": float(ready[0]) if ready and side != "compile215" else None,
                  "partial_steps": steps, "message": last[:400]}))
PY
}

for rep in $(seq 1 "$REPS"); do
  declare -A seen=()  # BATCH / SEQ can make two configurations one
  for entry in "${configs[@]}"; do
    read -r mode dtype batch seq threads <<<"$entry"
    batch=${BATCH:-$batch}
    seq=${SEQ:-$seq}
    label="$mode $dtype b$batch s$seq t$threads"
    [[ $label =~ $ONLY && -z ${seen[$label]:-} ]] || continue
    seen[$label]=1
    flags=(--batch "$batch" --seq "$seq" --threads "$threads")
    [[ $mode == eval ]] && flags+=(--eval)
    [[ $dtype == bf16 ]] && flags+=(--bf16)
    for side in "${sides[@]}"; do
      if [[ -n ${stopped[$side/$label]:-} ]]; then
        echo "[$(date -u +%T)] rep $rep $side: $label skipped (${stopped[$side/$label]})" >&2
        continue
      fi
      run "$side" "$label" "$rep" "${flags[@]}"
    done
  done
done

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
ended=$(date -u +%FT%TZ)
columns=$(for side in "${sides[@]}"; do printf '%s=%s\n' "$side" "${title[$side]}"; done)
skips=$(printf '%s\n' "${skipped[@]}")
python3 - "$results" "$started $ended" "$load_before" "$load_after" "$REPS" "$STEPS" "$WARMUP" "$LAYERS" \
  "$RUN_TIMEOUT" "$COMPILE_TIMEOUT" "$columns" "$skips" <<'PY'
import collections, json, statistics, sys

(path, started, load_before, load_after, reps, steps, warmup, layers, timeout, compile_timeout, columns,
 skips) = sys.argv[1:]
title = dict(line.split("=", 1) for line in columns.splitlines())
skipped = dict(line.split("=", 1) for line in skips.splitlines() if line)
sides = list(title)
rows = [json.loads(line) for line in open(path) if line.strip()]
by = collections.defaultdict(list)
for r in rows:
    by[(r["label"], r["who"])].append(r)
labels = list(dict.fromkeys(r["label"] for r in rows))


def med(label, side, key):
    vals = [r[key] for r in by[(label, side)] if "failed" not in r and r.get(key) is not None]
    return statistics.median(vals) if vals else None


def batch_of(label):
    return int(label.split()[2][1:])


def cell(label, side):
    """samples/s, peak RSS and MFU (where the side measured its peak), medians over the runs that finished."""
    ok = [r for r in by[(label, side)] if "failed" not in r]
    if ok:
        text = f"{med(label, side, 'samples_per_s'):.3g}/s, {med(label, side, 'peak_rss_mib'):.0f} MiB"
        mfu = med(label, side, "mfu")
        if mfu is not None:
            text += f", MFU {100 * mfu:.1f}%"
        if any(r.get("graphs_compiled_in_timed_steps") for r in ok):
            text += "§"
        return text + f" (n={len(ok)})"
    bad = by[(label, side)]
    if not bad:
        return "-"
    r = bad[0]
    if r["failed"] == "unavailable":
        return "unavailable*"
    if r["partial_steps"]:
        # A step that finished before the stop: its time bounds the step time from above.
        return f"~{batch_of(label) / min(r['partial_steps']):.3g}/s† ({r['failed']})"
    if r["failed"] == "timeout" and r["ready_s"] is not None:
        # No step finished: the first one took longer than the time left after set-up.
        return f"<{batch_of(label) / (r['wall_s'] - r['ready_s']):.2g}/s‡ (timeout)"
    if r["failed"] == "timeout":
        return f"timeout after {r['wall_s']:.0f} s, no step to show"
    return f"failed: {r['failed']} {r['message']}"


def best_other(label, key, pick):
    """(value, side) of the best finished median among the columns other than cpuft, or None."""
    vals = [(med(label, s, key), s) for s in sides if s != "cpuft"]
    vals = [v for v in vals if v[0] is not None]
    return pick(vals) if vals else None


backends = {}
for r in rows:
    if "backend" in r:
        backends.setdefault(r["who"], r["backend"])

print(f"Measured {started.replace(' ', ' .. ')} (load average before: {load_before}; after: {load_after}); "
      f"{reps} repetitions x ({warmup} warm-up + {steps} timed steps), {layers} layers, run timeout {timeout} s "
      f"(torch.compile: +{compile_timeout} s).")
unavailable = {}
for r in rows:
    if r.get("failed") == "unavailable":
        unavailable.setdefault(r["who"], r["message"])
for side in sides:
    if side in backends:
        print(f"- {title[side]}: {backends[side]}")
    if side in unavailable:
        print(f"- {title[side]}: unavailable*: {unavailable[side]}")
    if side not in backends and side not in unavailable:
        print(f"- {title[side]}: no run finished")
for side, why in skipped.items():
    print(f"- {side}: skipped, {why}")
print()
head = ["configuration"] + [title[s] for s in sides] + ["cpuft / best other", "peak RSS cpuft / lowest other"]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for label in labels:
    cells = [label] + [cell(label, s) for s in sides]
    c, best = med(label, "cpuft", "samples_per_s"), best_other(label, "samples_per_s", max)
    cells.append(f"{c / best[0]:.2f}x {title[best[1]]}" if c and best else "-")
    c, low = med(label, "cpuft", "peak_rss_mib"), best_other(label, "peak_rss_mib", min)
    cells.append(f"{c / low[0]:.2f}x {title[low[1]]}" if c and low else "-")
    print("| " + " | ".join(cells) + " |")

print()
for label in labels:
    if label.endswith(" t2") and label[:-1] + "1" in labels:
        one = label[:-1] + "1"
        for s in sides:
            a, b = med(one, s, "samples_per_s"), med(label, s, "samples_per_s")
            if a and b:
                print(f"- thread scaling, {title[s]}, {label[:-3]}: 1 -> 2 threads {b / a:.2f}x, "
                      f"efficiency {50 * b / a:.0f}%")
print("- Each cell: samples/s, peak RSS and, where the side measures its own matmul peak, MFU; medians over "
      "the n runs that finished. The ratios compare medians of finished runs only.")
print("- † from a step (possibly a warm-up step; never torch.compile's first) that finished before the run was "
      "stopped.")
print("- ‡ upper bound: no step finished within the run timeout after set-up.")
print("- § a graph was compiled during the timed steps: those step times include compiling.")
PY
