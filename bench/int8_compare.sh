#!/usr/bin/env bash
# INT8 evaluation side by side: cpuft's int8 model (cpuft quantize) against cpuft's own fp32 and bf16
# evaluation, ONNX Runtime int8 (export + quantize_dynamic) and PyTorch dynamic quantization, all on
# the same fine-tuned model, dev file, thread count and batch size, one after the other in one run
# (interleaved per repetition). Each evaluation is a whole process: load, tokenize, forward,
# post-process, score; its wall clock and peak RSS come from /usr/bin/time. The preparation steps
# (cpuft quantize, ONNX export + quantize_dynamic) are timed once, apart. Prints a markdown table.
# Not used by CI.
#
#   MODEL=out/minilm-ft DEV=../shared/data/squad/dev-v1.1.json PYTHON=/work/venv-int8/bin/python bench/int8_compare.sh
#
# Environment (defaults in brackets):
#   MODEL        a fine-tuned QA model directory (required)
#   DEV          the SQuAD v1.1 file to evaluate (required)
#   CALIB        a SQuAD file to calibrate static activations on; adds a "cpuft int8 static" row [none]
#   PYTHON       a python with torch, transformers<5, onnx, onnxruntime [python3]
#   CPUFT        the cpuft binary [build/cpuft]
#   THREADS [2]  BATCH [32]  MAX_EVAL_SAMPLES [all]  REPS [1]
#   SYSTEMS      which rows, in order [cpuft_int8 cpuft_fp32 cpuft_bf16 ort_int8 torch_dynamic]
#   WORK         where models and outputs go [a temporary directory, kept; printed]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
: "${MODEL:?set MODEL to a fine-tuned model directory}" "${DEV:?set DEV to a SQuAD v1.1 file}"
CPUFT=${CPUFT:-$root/build/cpuft}
PYTHON=${PYTHON:-python3}
THREADS=${THREADS:-2}
BATCH=${BATCH:-32}
REPS=${REPS:-1}
SYSTEMS=${SYSTEMS:-cpuft_int8 cpuft_fp32 cpuft_bf16 ort_int8 torch_dynamic}
WORK=${WORK:-$(mktemp -d /tmp/int8-compare-XXXXXX)}
TOOL=$root/tools/int8_reference_qa.py
limit=()
[[ -n ${MAX_EVAL_SAMPLES:-} ]] && limit=(--max_eval_samples "$MAX_EVAL_SAMPLES")
[[ -n ${CALIB:-} ]] && SYSTEMS="$SYSTEMS cpuft_int8_static"
mkdir -p "$WORK"
results=$WORK/results.tsv
: >"$results"
echo "int8_compare: work directory $WORK" >&2

timed() {  # timed LABEL REP CMD... : runs CMD under /usr/bin/time, appends "label rep wall rss_kib out" to results
  local label=$1 rep=$2
  shift 2
  local out=$WORK/out-$label-$rep
  mkdir -p "$out"
  /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" >"$out/stdout.txt" 2>"$out/stderr.txt" ||
    { echo "int8_compare: $label failed, see $out/stderr.txt" >&2; tail -3 "$out/stderr.txt" >&2; return 0; }
  echo "$label $rep $(cat "$out/time.txt") $out" >>"$results"
}

# Preparation (timed once each).
prep=$WORK/prep.txt
: >"$prep"
case " $SYSTEMS " in *" cpuft_int8 "*)
  /usr/bin/time -f "cpuft quantize (dynamic): %e s, peak RSS %M KiB" -a -o "$prep" \
    "$CPUFT" quantize --model_name_or_path "$MODEL" --output_dir "$WORK/int8" --threads "$THREADS" >/dev/null ;;
esac
if [[ -n ${CALIB:-} ]]; then
  /usr/bin/time -f "cpuft quantize (static, calibrated): %e s, peak RSS %M KiB" -a -o "$prep" \
    "$CPUFT" quantize --model_name_or_path "$MODEL" --output_dir "$WORK/int8-static" --calibration_file "$CALIB" \
    --threads "$THREADS" >/dev/null
fi
case " $SYSTEMS " in *" ort_int8 "*)
  /usr/bin/time -f "ONNX export + quantize_dynamic: %e s, peak RSS %M KiB" -a -o "$prep" \
    "$PYTHON" "$TOOL" --engine onnxruntime --prepare --model_name_or_path "$MODEL" --onnx_dir "$WORK/onnx" \
    >/dev/null 2>"$WORK/prep-onnx.err" ;;
esac

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
t_start=$(date -u +%FT%TZ)
common=(--validation_file "$DEV" --threads "$THREADS" --per_device_eval_batch_size "$BATCH" "${limit[@]}")
for rep in $(seq 1 "$REPS"); do
  for s in $SYSTEMS; do
    case $s in
      cpuft_fp32) timed "$s" "$rep" "$CPUFT" evaluate --model_name_or_path "$MODEL" "${common[@]}" --output_dir "$WORK/out-$s-$rep" ;;
      cpuft_bf16) timed "$s" "$rep" "$CPUFT" evaluate --model_name_or_path "$MODEL" --bf16 "${common[@]}" --output_dir "$WORK/out-$s-$rep" ;;
      cpuft_int8) timed "$s" "$rep" "$CPUFT" evaluate --model_name_or_path "$WORK/int8" "${common[@]}" --output_dir "$WORK/out-$s-$rep" ;;
      cpuft_int8_static) timed "$s" "$rep" "$CPUFT" evaluate --model_name_or_path "$WORK/int8-static" "${common[@]}" --output_dir "$WORK/out-$s-$rep" ;;
      ort_int8) timed "$s" "$rep" "$PYTHON" "$TOOL" --engine onnxruntime --model_name_or_path "$MODEL" --onnx_dir "$WORK/onnx" "${common[@]}" --output_dir "$WORK/out-$s-$rep" ;;
      torch_dynamic) timed "$s" "$rep" "$PYTHON" "$TOOL" --engine torch_dynamic --model_name_or_path "$MODEL" "${common[@]}" --output_dir "$WORK/out-$s-$rep" ;;
      *) echo "int8_compare: unknown system $s" >&2; exit 2 ;;
    esac
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo "Measured $t_start .. $(date -u +%FT%TZ) on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $THREADS threads, batch $BATCH, ${MAX_EVAL_SAMPLES:-all} questions of $(basename "$DEV"), $REPS repetition(s); load average before: $load_before, after: $load_after."
"$CPUFT" doctor | grep -E '^(oneDNN|bf16|int8):' | sed 's/^/- cpuft /'
sed 's/^/- /' "$prep"
python3 - "$results" <<'PY'
import json, os, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, rep, wall, rss, out = line.split()
    res = {}
    for name in ("eval_results.json", "all_results.json"):
        p = os.path.join(out, name)
        if os.path.exists(p):
            res = json.load(open(p))
            break
    em = res.get("eval_exact_match", res.get("exact_match"))
    f1 = res.get("eval_f1", res.get("f1"))
    r = rows.setdefault(label, {"wall": [], "rss": [], "em": em, "f1": f1})
    r["wall"].append(float(wall)); r["rss"].append(int(rss) / 1024)
names = {"cpuft_int8": "cpuft int8 (dynamic per token)", "cpuft_int8_static": "cpuft int8 (static, calibrated)",
         "cpuft_fp32": "cpuft fp32", "cpuft_bf16": "cpuft bf16", "ort_int8": "ONNX Runtime int8 (quantize_dynamic)",
         "torch_dynamic": "PyTorch dynamic int8 (quantize_dynamic)"}
base = statistics.median(rows["cpuft_int8"]["wall"]) if "cpuft_int8" in rows else None
print("\n| system | EM | F1 | wall clock s | cpuft int8 speed-up | peak RSS MiB |\n|---|---|---|---|---|---|")
for label, r in rows.items():
    wall = statistics.median(r["wall"])
    fmt = lambda v: "-" if v is None else f"{v:.2f}"
    up = f"{wall / base:.2f}x" if base else "-"
    print(f"| {names.get(label, label)} | {fmt(r['em'])} | {fmt(r['f1'])} | {wall:.1f} (n={len(r['wall'])}) | {up} | {statistics.median(r['rss']):.0f} |")
PY
