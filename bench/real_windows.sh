#!/usr/bin/env bash
# The whole job on real SQuAD windows, cpuft against the Hugging Face pipeline, whole processes one
# after the other (docs/performance.md, "Real windows"): evaluation of a fine-tuned QA model (cpuft
# fp32 / bf16 / int8 against run_qa's pipeline in PyTorch fp32 and IPEX bf16), then training with
# dynamic padding and length groups (cpuft, cpuft padded to max_seq_length, the transformers Trainer).
# Each row's wall clock and peak RSS come from /usr/bin/time; the outputs stay in WORK. Not used by CI.
#
#   MODEL=out/demo BASE=~/.cache/cpuft/all-MiniLM-L6-v2 DEV=dev-v1.1.json TRAIN=train.json \
#     PYTHON_T28=<venv>/bin/python PYTHON_T215=<venv>/bin/python bench/real_windows.sh
#
# Environment (defaults in brackets):
#   MODEL        a fine-tuned QA model directory, evaluated by every side (required)
#   INT8         its int8 version (cpuft quantize) [made into WORK from MODEL]
#   BASE         the model training starts from (required for the training rows)
#   DEV, TRAIN   SQuAD v1.1 files: evaluated, trained on (required)
#   PYTHON_T28   a python with torch 2.8, transformers 4.57, IPEX 2.8 (rows skipped without it)
#   PYTHON_T215  a python with the newest torch and transformers (rows skipped without it)
#   CPUFT [build/cpuft]  THREADS [2]  TRAIN_SAMPLES [2000]  WORK [a new temporary directory]
#   ROWS         which rows, in order [cpuft_eval_fp32 hf28_eval_fp32 cpuft_eval_bf16 ipex_eval_bf16
#                cpuft_eval_int8 cpuft_train_dynamic cpuft_train_padded hf215_train_dynamic]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
: "${MODEL:?set MODEL to a fine-tuned QA model directory}" "${DEV:?set DEV to a SQuAD v1.1 file}"
: "${TRAIN:?set TRAIN to a SQuAD v1.1 training file}"
CPUFT=${CPUFT:-$root/build/cpuft}
THREADS=${THREADS:-2}
TRAIN_SAMPLES=${TRAIN_SAMPLES:-2000}
WORK=${WORK:-$(mktemp -d /tmp/real-windows-XXXXXX)}
ROWS=${ROWS:-cpuft_eval_fp32 hf28_eval_fp32 cpuft_eval_bf16 ipex_eval_bf16 cpuft_eval_int8 cpuft_train_dynamic cpuft_train_padded hf215_train_dynamic}
HF=$root/tools/hf_reference_qa.py
export HF_HUB_OFFLINE=1 OMP_NUM_THREADS=$THREADS
mkdir -p "$WORK"
echo "real_windows: work directory $WORK, $(lscpu | sed -n 's/^Model name: *//p'), $THREADS threads" >&2

# Training: TRAIN_SAMPLES questions, 384 / 128, batch 16, one epoch, fp32, no checkpoints.
train=(--max_seq_length 384 --doc_stride 128 --max_train_samples "$TRAIN_SAMPLES" --per_device_train_batch_size 16
       --learning_rate 5e-5 --num_train_epochs 1 --seed 42)
dynamic=(--pad_to_max_length false --group_by_length)

row() {  # name, command...
  local name=$1
  shift
  echo "[$(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)] $name" >&2
  if /usr/bin/time -f "%e %M" -o "$WORK/$name.time" "$@" >"$WORK/$name.log" 2>&1; then
    read -r wall rss <"$WORK/$name.time"
    printf '| %s | %s | %s |\n' "$name" "$wall" "$((rss / 1024))"
  else
    printf '| %s | failed (see %s) | - |\n' "$name" "$WORK/$name.log"
  fi
}
skip() { printf '| %s | skipped: %s | - |\n' "$1" "$2"; }

echo "| row | wall clock s | peak RSS MiB |"
echo "|---|---|---|"
for r in $ROWS; do
  case $r in
    cpuft_eval_fp32) row "$r" "$CPUFT" evaluate --model_name_or_path "$MODEL" --validation_file "$DEV" --output_dir "$WORK/$r" --threads "$THREADS" ;;
    cpuft_eval_bf16) row "$r" "$CPUFT" evaluate --bf16 --model_name_or_path "$MODEL" --validation_file "$DEV" --output_dir "$WORK/$r" --threads "$THREADS" ;;
    cpuft_eval_int8)
      if [[ -z ${INT8:-} ]]; then
        INT8=$WORK/int8
        "$CPUFT" quantize --model_name_or_path "$MODEL" --output_dir "$INT8" >"$WORK/quantize.log" 2>&1
      fi
      row "$r" "$CPUFT" evaluate --model_name_or_path "$INT8" --validation_file "$DEV" --output_dir "$WORK/$r" --threads "$THREADS" ;;
    hf28_eval_fp32 | ipex_eval_bf16)
      if [[ -z ${PYTHON_T28:-} ]]; then skip "$r" "PYTHON_T28 not set"; continue; fi
      extra=()
      [[ $r == ipex_eval_bf16 ]] && extra=(--bf16 --ipex)
      row "$r" "$PYTHON_T28" "$HF" --do_eval "${extra[@]}" --model_name_or_path "$MODEL" --train_file "$TRAIN" \
        --validation_file "$DEV" --output_dir "$WORK/$r" --per_device_eval_batch_size 8 --threads "$THREADS" ;;
    cpuft_train_dynamic | cpuft_train_padded)
      : "${BASE:?set BASE to the model training starts from}"
      pad=()
      [[ $r == cpuft_train_dynamic ]] && pad=("${dynamic[@]}")
      row "$r" "$CPUFT" train --model_name_or_path "$BASE" --train_file "$TRAIN" --output_dir "$WORK/$r" \
        --overwrite_output_dir --save_strategy no --logging_steps 25 --threads "$THREADS" "${pad[@]}" "${train[@]}" ;;
    hf215_train_dynamic)
      : "${BASE:?set BASE to the model training starts from}"
      if [[ -z ${PYTHON_T215:-} ]]; then skip "$r" "PYTHON_T215 not set"; continue; fi
      row "$r" "$PYTHON_T215" "$HF" --do_train --model_name_or_path "$BASE" --train_file "$TRAIN" --validation_file "$DEV" \
        --output_dir "$WORK/$r" --threads "$THREADS" "${dynamic[@]}" "${train[@]}" ;;
    *) echo "real_windows: unknown row '$r'; expected one of the ROWS listed in the header" >&2; exit 2 ;;
  esac
done
