#!/usr/bin/env python3
"""The Hugging Face reference run for docs/accuracy.md and docs/performance.md: transformers' Trainer
fine-tunes an extractive-QA model with run_qa.py's preprocessing and post-processing, then scores the dev
set with the official SQuAD v1.1 metric. It takes the same flags as `cpuft train` for the settings the
comparisons use: --do_train / --do_eval (neither: both), --pad_to_max_length false (run_qa's
DataCollatorWithPadding, each batch padded to its longest; evaluation logits concatenated with -100 as
the Trainer pads them), --group_by_length, --bf16 (autocast), --ipex (intel_extension_for_pytorch.optimize
on the model, and the optimizer when training), --attn_implementation (sdpa by default).

    OMP_NUM_THREADS=1 /usr/bin/time -v /work/pyref/bin/python tools/hf_reference_qa.py \
        --model_name_or_path DIR --train_file train.json --validation_file dev.json \
        --max_seq_length 256 --doc_stride 64 --max_train_samples 4000 \
        --per_device_train_batch_size 32 --per_device_eval_batch_size 64 \
        --learning_rate 5e-5 --num_train_epochs 1 --seed 42 --threads 1 --output_dir OUT

The `datasets` and `evaluate` packages are not needed: run_qa's prepare_train_features and
prepare_validation_features, utils_qa.postprocess_qa_predictions and the official metric are the re-typed
references in tools/run_qa_features.py and tools/make_eval_reference.py (checked against cpuft's
fixtures). Writes OUT/{eval_results.json, predictions.json, timings.json}.
"""
import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_eval_reference import postprocess_qa_predictions, squad_v1_compute  # noqa: E402
from run_qa_features import load_squad, tokenize_batch, train_labels  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model_name_or_path", required=True)
    p.add_argument("--train_file", required=True)
    p.add_argument("--validation_file", required=True)
    p.add_argument("--output_dir", required=True)
    p.add_argument("--max_seq_length", type=int, default=384)
    p.add_argument("--doc_stride", type=int, default=128)
    p.add_argument("--max_train_samples", type=int, default=None)
    p.add_argument("--max_eval_samples", type=int, default=None)
    p.add_argument("--per_device_train_batch_size", type=int, default=8)
    p.add_argument("--per_device_eval_batch_size", type=int, default=8)
    p.add_argument("--learning_rate", type=float, default=5e-5)
    p.add_argument("--num_train_epochs", type=float, default=1.0)
    p.add_argument("--max_steps", type=int, default=-1)
    p.add_argument("--logging_steps", type=int, default=25)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--bf16", action="store_true", help="torch.autocast(cpu, bfloat16) through the Trainer")
    p.add_argument("--do_train", action="store_true")
    p.add_argument("--do_eval", action="store_true")
    p.add_argument("--pad_to_max_length", default="true", choices=["true", "false"])
    p.add_argument("--group_by_length", action="store_true")
    p.add_argument("--ipex", action="store_true")
    p.add_argument("--attn_implementation", default="sdpa")
    a = p.parse_args()
    if not a.do_train and not a.do_eval:
        a.do_train = a.do_eval = True
    a.pad = a.pad_to_max_length == "true"
    return a


class Features(torch.utils.data.Dataset):
    """Rows of model inputs, as run_qa's mapped dataset after its unused columns are removed."""

    def __init__(self, columns):
        self.columns = {k: torch.tensor(v) for k, v in columns.items()}
        self.n = len(next(iter(columns.values())))

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {k: v[i] for k, v in self.columns.items()}


def unpad(enc, i, cols):
    """Feature i of a padded encoding as run_qa makes it with padding=False: its first len tokens."""
    n = sum(enc["attention_mask"][i])
    return {k: enc[k][i][:n] for k in cols}


class Rows(torch.utils.data.Dataset):
    """Unpadded rows (run_qa with --pad_to_max_length false): lists of each feature's own length, padded
    per batch by DataCollatorWithPadding; labels stay scalars."""

    def __init__(self, columns):
        lengths = [sum(m) for m in columns["attention_mask"]]
        self.rows = [{k: (v[i][:lengths[i]] if isinstance(v[i], list) else v[i]) for k, v in columns.items()}
                     for i in range(len(lengths))]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


def train_features(tok, examples, args):
    if args.max_train_samples is not None:  # run_qa selects examples first, then features
        examples = examples[: args.max_train_samples]
    enc = tokenize_batch(tok, [e["question"] for e in examples], [e["context"] for e in examples],
                         args.max_seq_length, args.doc_stride)
    labels = train_labels(enc, examples)
    cols = {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"],
            "start_positions": [s for s, _ in labels], "end_positions": [e for _, e in labels]}
    if "token_type_ids" in enc:
        cols["token_type_ids"] = enc["token_type_ids"]
    if args.max_train_samples is not None:
        cols = {k: v[: args.max_train_samples] for k, v in cols.items()}
    if not args.pad:
        return Rows(cols)
    return Features(cols)


def eval_features(tok, examples, args):
    if args.max_eval_samples is not None:
        examples = examples[: args.max_eval_samples]
    enc = tokenize_batch(tok, [e["question"] for e in examples], [e["context"] for e in examples],
                         args.max_seq_length, args.doc_stride)
    meta = []
    for i in range(len(enc["input_ids"])):
        seq_ids = enc.sequence_ids(i)
        offsets = [o if seq_ids[k] == 1 else None for k, o in enumerate(enc["offset_mapping"][i])]
        meta.append({"example_id": examples[enc["overflow_to_sample_mapping"][i]]["id"], "offset_mapping": offsets})
    cols = {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]}
    if "token_type_ids" in enc:
        cols["token_type_ids"] = enc["token_type_ids"]
    if args.max_eval_samples is not None:
        cols = {k: v[: args.max_eval_samples] for k, v in cols.items()}
        meta = meta[: args.max_eval_samples]
    return examples, (Features(cols) if args.pad else Rows(cols)), meta


def training_arguments(args, TrainingArguments):
    kw = dict(output_dir=args.output_dir, per_device_train_batch_size=args.per_device_train_batch_size,
              per_device_eval_batch_size=args.per_device_eval_batch_size, learning_rate=args.learning_rate,
              num_train_epochs=args.num_train_epochs, max_steps=args.max_steps, seed=args.seed, use_cpu=True,
              bf16=args.bf16, save_strategy="no", report_to=[], logging_steps=args.logging_steps,
              dataloader_num_workers=0)
    if args.group_by_length:  # transformers 5 spells it train_sampling_strategy
        fields = TrainingArguments.__dataclass_fields__
        if "train_sampling_strategy" in fields:
            kw["train_sampling_strategy"] = "group_by_length"
        else:
            kw["group_by_length"] = True
    return TrainingArguments(**kw)


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    from transformers import (AutoModelForQuestionAnswering, AutoTokenizer, DataCollatorWithPadding, Trainer,
                              TrainingArguments, default_data_collator)

    os.makedirs(args.output_dir, exist_ok=True)
    t_start = time.perf_counter()
    tok = AutoTokenizer.from_pretrained(args.model_name_or_path)
    t0 = time.perf_counter()
    train_ds = train_features(tok, load_squad(args.train_file), args) if args.do_train else []
    dev_examples, dev_ds, dev_meta = (eval_features(tok, load_squad(args.validation_file), args)
                                      if args.do_eval else ([], [], []))
    t_prep = time.perf_counter() - t0
    print(f"features: train {len(train_ds)}, eval {len(dev_ds)} ({t_prep:.1f} s)", flush=True)

    t0 = time.perf_counter()
    model = AutoModelForQuestionAnswering.from_pretrained(args.model_name_or_path,
                                                          attn_implementation=args.attn_implementation)
    targs = training_arguments(args, TrainingArguments)
    collator = default_data_collator if args.pad else DataCollatorWithPadding(tok)
    optimizers = (None, None)
    if args.ipex:
        import intel_extension_for_pytorch as ipex
        dtype = torch.bfloat16 if args.bf16 else torch.float32
        if args.do_train:
            opt = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
            model, opt = ipex.optimize(model, optimizer=opt, dtype=dtype)
            optimizers = (opt, None)
        else:
            model = ipex.optimize(model.eval(), dtype=dtype)
    trainer = Trainer(model=model, args=targs, train_dataset=train_ds if args.do_train else None,
                      data_collator=collator, optimizers=optimizers)
    t_load = time.perf_counter() - t0

    metrics, t_train, t_eval = {}, 0.0, 0.0
    if args.do_train:
        t0 = time.perf_counter()
        train_out = trainer.train()
        t_train = time.perf_counter() - t0
        metrics.update({"train_loss": train_out.training_loss, "train_features": len(train_ds)})
        with open(os.path.join(args.output_dir, "log_history.json"), "w") as f:
            json.dump(trainer.state.log_history, f, indent=1)

    files = None
    if args.do_eval:
        t0 = time.perf_counter()
        out = trainer.predict(dev_ds)
        t_forward = time.perf_counter() - t0
        start_logits, end_logits = out.predictions
        files = postprocess_qa_predictions(dev_examples, dev_meta, start_logits, end_logits, False)
        predictions = json.loads(files["predictions"])
        refs = [{"id": e["id"], "answers": {"text": e["answer_texts"]}} for e in dev_examples]
        metrics.update(squad_v1_compute(refs, predictions))
        t_eval = time.perf_counter() - t0
        metrics.update({"eval_features": len(dev_ds), "eval_examples": len(dev_examples), "forward_s": t_forward})

    timings = {"preprocess_s": t_prep, "load_s": t_load, "train_s": t_train, "eval_s": t_eval,
               "total_s": time.perf_counter() - t_start, "torch": torch.__version__, "threads": args.threads}
    with open(os.path.join(args.output_dir, "eval_results.json"), "w") as f:
        json.dump(metrics, f, indent=2)
    with open(os.path.join(args.output_dir, "timings.json"), "w") as f:
        json.dump(timings, f, indent=2)
    if files is not None:
        with open(os.path.join(args.output_dir, "predictions.json"), "w") as f:
            f.write(files["predictions"])
    print(json.dumps({**metrics, **timings}), flush=True)


if __name__ == "__main__":
    main()
