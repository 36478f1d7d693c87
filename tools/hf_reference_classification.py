#!/usr/bin/env python3
"""The Hugging Face reference runs for the text- and token-classification rows of docs/accuracy.md and
docs/performance.md: transformers' Trainer fine-tunes and evaluates a model as run_glue.py (local
--train_file / --validation_file, no --task_name) or run_ner.py do, on the files cpuft reads.

The steps are the scripts' own, written out with the same library calls (as tools/make_task_data_reference.py
does for the data fixtures):
- text-classification (run_glue): load_dataset("csv"|"json"); regression when the label column is float;
  otherwise the sorted unique labels, label_to_id = {label: i}, written into the config as label2id /
  id2label; sentence1 / sentence2 columns, else the first two (or one) non-label columns;
  tokenizer(a[, b], padding="max_length" or False, max_length=min(max_seq_length, model_max_length),
  truncation=True); default_data_collator with --pad_to_max_length true, else the Trainer's
  DataCollatorWithPadding; metric "accuracy" (or "mse" for regression): sklearn's accuracy_score, as
  `evaluate` computes it.
- token-classification (run_ner): load_dataset("json"); text column `tokens` (else the first), label column
  `ner_tags` (else the second); the sorted label list; tokenizer(words, is_split_into_words=True,
  padding, truncation=True, max_length=max_seq_length); the label on each word's first sub-token and -100
  on the other sub-tokens and the special tokens (--label_all_tokens is not needed here);
  DataCollatorForTokenClassification; seqeval's default-mode classification_report (micro average) and
  accuracy_score on the labelled positions, as `evaluate`'s "seqeval" and run_ner's compute_metrics report
  them: eval_precision, eval_recall, eval_f1, eval_accuracy.

`evaluate.load` fetches its metric scripts from the Hub, so the calls those scripts make (scikit-learn,
seqeval) are made directly. Models: AutoModelForSequenceClassification / AutoModelForTokenClassification
from --model_name_or_path with num_labels (the head drawn by transformers after set_seed(seed)).

    HF_HUB_OFFLINE=1 OMP_NUM_THREADS=2 /usr/bin/time -v python \
        tools/hf_reference_classification.py --task text-classification \
        --model_name_or_path DIR --train_file data/snli-mini/train.csv \
        --validation_file data/snli-mini/validation.csv --max_seq_length 128 \
        --per_device_train_batch_size 32 --per_device_eval_batch_size 64 --learning_rate 1e-4 \
        --num_train_epochs 2 --warmup_ratio 0.1 --seed 42 --threads 2 --output_dir OUT

Writes the model (Trainer.save_model) and OUT/{eval_results.json, timings.json, log_history.json}.
"""
import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from glue_columns import glue_columns  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", required=True, choices=["text-classification", "token-classification"])
    p.add_argument("--model_name_or_path", required=True)
    p.add_argument("--train_file", required=True)
    p.add_argument("--validation_file", required=True)
    p.add_argument("--output_dir", required=True)
    p.add_argument("--max_seq_length", type=int, default=128)
    p.add_argument("--pad_to_max_length", default="true", choices=["true", "false"])
    p.add_argument("--max_train_samples", type=int, default=None)
    p.add_argument("--max_eval_samples", type=int, default=None)
    p.add_argument("--per_device_train_batch_size", type=int, default=8)
    p.add_argument("--per_device_eval_batch_size", type=int, default=8)
    p.add_argument("--learning_rate", type=float, default=5e-5)
    p.add_argument("--weight_decay", type=float, default=0.0)
    p.add_argument("--warmup_ratio", type=float, default=0.0)
    p.add_argument("--num_train_epochs", type=float, default=3.0)
    p.add_argument("--logging_steps", type=int, default=10)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--bf16", action="store_true", help="torch.autocast(cpu, bfloat16) through the Trainer")
    a = p.parse_args()
    a.pad = a.pad_to_max_length == "true"
    return a


def load(args):
    from datasets import load_dataset
    import datasets
    datasets.disable_progress_bars()
    files = {"train": args.train_file, "validation": args.validation_file}
    ext = args.train_file.rsplit(".", 1)[-1]
    return load_dataset("csv" if ext == "csv" else "json", data_files=files)


def glue_data(args, tok, raw):
    """run_glue.main() for local files, from the label list to the mapped datasets."""
    is_regression, label_list, key1, key2 = glue_columns(raw["train"])
    num_labels = 1 if is_regression else len(label_list)
    label_to_id = None if is_regression else {v: i for i, v in enumerate(label_list)}
    padding = "max_length" if args.pad else False
    max_len = min(args.max_seq_length, tok.model_max_length)

    def preprocess_function(examples):
        texts = (examples[key1],) if key2 is None else (examples[key1], examples[key2])
        result = tok(*texts, padding=padding, max_length=max_len, truncation=True)
        if label_to_id is not None and "label" in examples:
            result["label"] = [(label_to_id[lab] if lab != -1 else -1) for lab in examples["label"]]
        return result

    ds = raw.map(preprocess_function, batched=True)  # the Trainer drops the text columns, as in run_glue
    if label_to_id is not None and ds["train"].features["label"].dtype in ("string", "large_string"):
        # datasets 5 keeps a string label column's type when map returns the ids under the same name
        # ("0", "1", ...), which default_data_collator cannot make a tensor of: make them integers again.
        from datasets import Value
        ds = ds.cast_column("label", Value("int64"))
    return ds, num_labels, label_to_id, is_regression


def ner_data(args, tok, raw):
    """run_ner.main() for local JSON files, from the label list to the tokenize_and_align_labels maps."""
    column_names = raw["train"].column_names
    text_col = "tokens" if "tokens" in column_names else column_names[0]
    label_col = "ner_tags" if "ner_tags" in column_names else column_names[1]
    labels = set()
    for row in raw["train"][label_col]:
        labels |= set(row)
    label_list = sorted(labels)
    label_to_id = {lab: i for i, lab in enumerate(label_list)}
    padding = "max_length" if args.pad else False

    def tokenize_and_align_labels(examples):
        enc = tok(examples[text_col], padding=padding, truncation=True, max_length=args.max_seq_length,
                  is_split_into_words=True)
        all_labels = []
        for i, label in enumerate(examples[label_col]):
            previous, ids = None, []
            for w in enc.word_ids(batch_index=i):
                if w is None:
                    ids.append(-100)
                elif w != previous:
                    ids.append(label_to_id[label[w]])
                else:
                    ids.append(-100)
                previous = w
            all_labels.append(ids)
        enc["labels"] = all_labels
        return enc

    ds = {s: raw[s].map(tokenize_and_align_labels, batched=True, remove_columns=raw[s].column_names)
          for s in raw}
    return ds, label_list, label_to_id


def seqeval_scores(predictions, references):
    """evaluate's "seqeval" (default mode) as run_ner's compute_metrics returns it."""
    from seqeval.metrics import accuracy_score, classification_report
    report = classification_report(y_true=references, y_pred=predictions, output_dict=True)
    micro = report["micro avg"]
    return {"precision": float(micro["precision"]), "recall": float(micro["recall"]),
            "f1": float(micro["f1-score"]), "accuracy": float(accuracy_score(y_true=references, y_pred=predictions))}


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    from transformers import (AutoConfig, AutoModelForSequenceClassification, AutoModelForTokenClassification,
                              AutoTokenizer, DataCollatorForTokenClassification, Trainer, TrainingArguments,
                              default_data_collator, set_seed)
    from sklearn.metrics import accuracy_score, mean_squared_error

    os.makedirs(args.output_dir, exist_ok=True)
    t_start = time.perf_counter()
    set_seed(args.seed)  # as both scripts do, before the model (and its new head) is made
    tok = AutoTokenizer.from_pretrained(args.model_name_or_path)
    t0 = time.perf_counter()
    raw = load(args)
    if args.task == "text-classification":
        ds, num_labels, label_to_id, is_regression = glue_data(args, tok, raw)
        config = AutoConfig.from_pretrained(args.model_name_or_path, num_labels=num_labels)
        model_class = AutoModelForSequenceClassification
    else:
        ds, label_list, label_to_id = ner_data(args, tok, raw)
        num_labels = len(label_list)
        config = AutoConfig.from_pretrained(args.model_name_or_path, num_labels=num_labels, finetuning_task="ner")
        model_class = AutoModelForTokenClassification
    train_ds, eval_ds = ds["train"], ds["validation"]
    if args.max_train_samples is not None:
        train_ds = train_ds.select(range(min(len(train_ds), args.max_train_samples)))
    if args.max_eval_samples is not None:
        eval_ds = eval_ds.select(range(min(len(eval_ds), args.max_eval_samples)))
    t_prep = time.perf_counter() - t0

    t0 = time.perf_counter()
    model = model_class.from_pretrained(args.model_name_or_path, config=config)
    if label_to_id is not None:
        model.config.label2id = label_to_id
        model.config.id2label = {i: lab for lab, i in label_to_id.items()}
    if args.task == "text-classification":
        collator = default_data_collator if args.pad else None  # None: the Trainer's DataCollatorWithPadding

        def compute_metrics(p):
            preds = p.predictions[0] if isinstance(p.predictions, tuple) else p.predictions
            if is_regression:
                return {"mse": float(mean_squared_error(p.label_ids, np.squeeze(preds)))}
            return {"accuracy": float(accuracy_score(p.label_ids, np.argmax(preds, axis=1)))}
    else:
        collator = DataCollatorForTokenClassification(tok)

        def compute_metrics(p):
            preds = np.argmax(p.predictions, axis=2)
            true_p = [[label_list[q] for q, lab in zip(pr, la) if lab != -100] for pr, la in zip(preds, p.label_ids)]
            true_l = [[label_list[lab] for q, lab in zip(pr, la) if lab != -100] for pr, la in zip(preds, p.label_ids)]
            return seqeval_scores(true_p, true_l)

    kw = dict(output_dir=args.output_dir, per_device_train_batch_size=args.per_device_train_batch_size,
              per_device_eval_batch_size=args.per_device_eval_batch_size, learning_rate=args.learning_rate,
              weight_decay=args.weight_decay, num_train_epochs=args.num_train_epochs, seed=args.seed,
              use_cpu=True, bf16=args.bf16, save_strategy="no", report_to=[], logging_steps=args.logging_steps,
              dataloader_num_workers=0)
    if "warmup_ratio" in TrainingArguments.__dataclass_fields__:
        kw["warmup_ratio"] = args.warmup_ratio
    else:  # transformers 5 takes the ratio as a float warmup_steps in [0, 1): ceil(ratio * steps), as cpuft
        kw["warmup_steps"] = args.warmup_ratio
    targs = TrainingArguments(**kw)
    trainer = Trainer(model=model, args=targs, train_dataset=train_ds, eval_dataset=eval_ds,
                      processing_class=tok, data_collator=collator, compute_metrics=compute_metrics)
    t_load = time.perf_counter() - t0

    t0 = time.perf_counter()
    train_out = trainer.train()
    t_train = time.perf_counter() - t0
    t0 = time.perf_counter()
    trainer.save_model()  # as both scripts do after training (cpuft writes its output directory too)
    t_save = time.perf_counter() - t0
    metrics = {"train_loss": train_out.training_loss, "train_samples": len(train_ds),
               "train_steps": train_out.global_step}
    with open(os.path.join(args.output_dir, "log_history.json"), "w") as f:
        json.dump(trainer.state.log_history, f, indent=1)

    t0 = time.perf_counter()
    metrics.update(trainer.evaluate())
    t_eval = time.perf_counter() - t0
    metrics["eval_samples"] = len(eval_ds)

    timings = {"preprocess_s": t_prep, "load_s": t_load, "train_s": t_train, "save_s": t_save, "eval_s": t_eval,
               "total_s": time.perf_counter() - t_start, "torch": torch.__version__,
               "transformers": __import__("transformers").__version__, "threads": args.threads, "bf16": args.bf16}
    with open(os.path.join(args.output_dir, "eval_results.json"), "w") as f:
        json.dump(metrics, f, indent=2)
    with open(os.path.join(args.output_dir, "timings.json"), "w") as f:
        json.dump(timings, f, indent=2)
    print(json.dumps({**metrics, **timings}), flush=True)


if __name__ == "__main__":
    main()
