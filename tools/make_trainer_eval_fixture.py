#!/usr/bin/env python3
"""Writes tests/fixtures/train/trainer_eval_run.json: what transformers' Trainer writes when it evaluates
during training, keeps the best checkpoint and reports to TensorBoard, as run_qa.py drives it.

    HF_HUB_OFFLINE=1 python tools/make_trainer_eval_fixture.py

A tiny random DistilBertForQuestionAnswering trains 6 steps on 16 questions of data/squad-mini/ with
--eval_strategy steps --eval_steps 2 --save_steps 2 --save_total_limit 1 --load_best_model_at_end
--metric_for_best_model f1 --report_to tensorboard --logging_steps 1. Evaluation is run_qa's
QuestionAnsweringTrainer.evaluate (trainer_qa.py, re-typed below) with a stub compute_metrics that returns
the SQuAD metric's keys with scripted values (f1 40, 60, 50 at steps 2, 4, 6), so that the best checkpoint
is neither the first nor the last; then, as run_qa does with --do_eval, trainer.evaluate() once more. The fixture holds:
  log_history          every entry with its keys in the order the Trainer logged them (lists of pairs;
                       values that vary from run to run replaced by null; trainer_state.json sorts the keys)
  trainer_state        the final trainer_state.json (trainer.save_state()) without log_history
  saves                after each checkpoint save (the Trainer's on_save, after its rotation): the step,
                       the checkpoints left, and best_* of that checkpoint's trainer_state.json
  checkpoints_at_end   the checkpoints left after train() (save_total_limit 1 keeps only the best)
  final_model_is       the checkpoint whose model.safetensors the output directory ends with
  tensorboard          the logging_dir's name pattern (runs/<%b%d_%H-%M-%S>_<host>), the event files' name
                       patterns (the final evaluate() opens a second one), and every scalar tag with its
                       steps, read back with TensorBoard's EventAccumulator (the text summaries "args" and
                       "model_config" listed apart)
"""
import json
import math
import os
import re
import socket
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_qa_features import load_squad, tokenize_batch, train_labels  # noqa: E402


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "train", "trainer_eval_run.json")
SCRIPTED_F1 = [40.0, 60.0, 50.0, 60.0]  # the last: run_qa's final evaluation, of the best model
TIMING_KEYS = {"eval_runtime", "eval_samples_per_second", "eval_steps_per_second", "train_runtime",
               "train_samples_per_second", "train_steps_per_second", "total_flos", "grad_norm", "loss",
               "train_loss", "learning_rate"}


class Rows(torch.utils.data.Dataset):
    def __init__(self, columns):
        self.columns = {k: torch.tensor(v) for k, v in columns.items()}
        self.n = len(next(iter(columns.values())))

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {k: v[i] for k, v in self.columns.items()}


def main():
    from transformers import (AutoTokenizer, DistilBertConfig, DistilBertForQuestionAnswering, Trainer,
                              TrainerCallback, TrainingArguments)
    from transformers.trainer_utils import speed_metrics
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    class QuestionAnsweringTrainer(Trainer):
        """run_qa.py's trainer_qa.py: evaluate() as the example defines it."""

        def __init__(self, *args, eval_examples=None, post_process_function=None, **kwargs):
            super().__init__(*args, **kwargs)
            self.eval_examples = eval_examples
            self.post_process_function = post_process_function

        def evaluate(self, eval_dataset=None, eval_examples=None, ignore_keys=None, metric_key_prefix="eval"):
            eval_dataset = self.eval_dataset if eval_dataset is None else eval_dataset
            eval_dataloader = self.get_eval_dataloader(eval_dataset)
            eval_examples = self.eval_examples if eval_examples is None else eval_examples
            compute_metrics = self.compute_metrics
            self.compute_metrics = None
            start_time = time.time()
            try:
                output = self.evaluation_loop(eval_dataloader, description="Evaluation",
                                              prediction_loss_only=True if compute_metrics is None else None,
                                              ignore_keys=ignore_keys, metric_key_prefix=metric_key_prefix)
            finally:
                self.compute_metrics = compute_metrics
            total_batch_size = self.args.eval_batch_size * self.args.world_size
            if f"{metric_key_prefix}_jit_compilation_time" in output.metrics:
                start_time += output.metrics[f"{metric_key_prefix}_jit_compilation_time"]
            if f"{metric_key_prefix}_model_preparation_time" in output.metrics:
                start_time += output.metrics[f"{metric_key_prefix}_model_preparation_time"]
            output.metrics.update(speed_metrics(metric_key_prefix, start_time, num_samples=output.num_samples,
                                                num_steps=math.ceil(output.num_samples / total_batch_size)))
            if self.post_process_function is not None and self.compute_metrics is not None and self.args.should_save:
                eval_preds = self.post_process_function(eval_examples, eval_dataset, output.predictions)
                metrics = self.compute_metrics(eval_preds)
                for key in list(metrics.keys()):
                    if not key.startswith(f"{metric_key_prefix}_"):
                        metrics[f"{metric_key_prefix}_{key}"] = metrics.pop(key)
                metrics.update(output.metrics)
            else:
                metrics = output.metrics
            if self.args.should_log:
                self.log(metrics)
            self.control = self.callback_handler.on_evaluate(self.args, self.state, self.control, metrics)
            return metrics

    scripted = iter(SCRIPTED_F1)

    def compute_metrics(_):
        f1 = next(scripted)
        return {"exact_match": f1 / 2, "f1": f1}  # the keys of the squad metric, in its order

    tok = AutoTokenizer.from_pretrained(os.path.join(ROOT, "tests", "fixtures", "text"))
    train = load_squad(os.path.join(ROOT, "data", "squad-mini", "train-mini-v1.1.json"))[:16]
    dev = load_squad(os.path.join(ROOT, "data", "squad-mini", "dev-mini-v1.1.json"))[:8]
    enc = tokenize_batch(tok, [e["question"] for e in train], [e["context"] for e in train], 128, 32)
    labels = train_labels(enc, train)
    n = 16  # the first 16 features: 4 steps per epoch at batch 4
    train_ds = Rows({"input_ids": enc["input_ids"][:n], "attention_mask": enc["attention_mask"][:n],
                     "start_positions": [s for s, _ in labels][:n], "end_positions": [e for _, e in labels][:n]})
    denc = tokenize_batch(tok, [e["question"] for e in dev], [e["context"] for e in dev], 128, 32)
    dev_ds = Rows({"input_ids": denc["input_ids"], "attention_mask": denc["attention_mask"]})

    torch.manual_seed(0)
    config = DistilBertConfig(vocab_size=tok.vocab_size, dim=32, n_layers=2, n_heads=2, hidden_dim=64,
                              max_position_embeddings=128)
    model = DistilBertForQuestionAnswering(config)

    saves = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")

        def checkpoints():
            return sorted((d for d in os.listdir(out) if re.fullmatch(r"checkpoint-\d+", d)),
                          key=lambda d: int(d.split("-")[1]))

        class RecordSaves(TrainerCallback):
            def on_save(self, args, state, control, **kwargs):
                with open(os.path.join(out, f"checkpoint-{state.global_step}", "trainer_state.json")) as f:
                    ck = json.load(f)
                saves.append({"step": state.global_step, "checkpoints": checkpoints(),
                              **{k: rel(ck[k]) for k in ("best_global_step", "best_metric", "best_model_checkpoint")}})

        def rel(v):  # paths relative to the output directory's parent, as "out/checkpoint-4"
            return os.path.relpath(v, tmp) if isinstance(v, str) else v

        args = TrainingArguments(
            output_dir=out, per_device_train_batch_size=4, per_device_eval_batch_size=4, learning_rate=1e-3,
            max_steps=6, logging_steps=1, eval_strategy="steps", eval_steps=2, save_strategy="steps", save_steps=2,
            save_total_limit=1, load_best_model_at_end=True, metric_for_best_model="f1", report_to=["tensorboard"],
            seed=42, use_cpu=True, dataloader_num_workers=0)
        trainer = QuestionAnsweringTrainer(
            model=model, args=args, train_dataset=train_ds, eval_dataset=dev_ds, eval_examples=dev,
            post_process_function=lambda examples, dataset, predictions: predictions,
            compute_metrics=compute_metrics, callbacks=[RecordSaves()])
        trainer.train()
        at_end = checkpoints()
        trainer.save_model()
        trainer.save_state()  # run_qa.py's order: model, metrics, state, then evaluate()
        history = list(trainer.state.log_history)  # in memory: the keys in the order they were logged
        trainer.evaluate()  # run_qa's --do_eval after training (logged to TensorBoard, not in trainer_state.json)

        with open(os.path.join(out, "trainer_state.json")) as f:
            state = json.load(f)
        with open(os.path.join(out, "model.safetensors"), "rb") as f:
            final_model = f.read()
        final_model_is = None
        for ck in checkpoints():
            with open(os.path.join(out, ck, "model.safetensors"), "rb") as f:
                if f.read() == final_model:
                    final_model_is = ck

        runs = os.listdir(os.path.join(out, "runs"))
        assert len(runs) == 1, runs
        logdir = os.path.join(out, "runs", runs[0])
        files = sorted(os.listdir(logdir))  # the final evaluate() opens a second writer
        acc = EventAccumulator(logdir, size_guidance={"scalars": 0, "tensors": 0})
        acc.Reload()
        scalars = {tag: [e.step for e in acc.Scalars(tag)] for tag in sorted(acc.Tags()["scalars"])}
        texts = sorted(acc.Tags()["tensors"])

    host = re.escape(socket.gethostname())
    fixture = {
        "made_with": {"transformers": __import__("transformers").__version__, "torch": torch.__version__},
        "args": {"max_steps": 6, "per_device_train_batch_size": 4, "train_features": n, "logging_steps": 1,
                 "eval_strategy": "steps", "eval_steps": 2, "save_steps": 2, "save_total_limit": 1,
                 "load_best_model_at_end": True, "metric_for_best_model": "f1", "scripted_f1": SCRIPTED_F1},
        "log_history": [[[k, None if k in TIMING_KEYS else v] for k, v in entry.items()] for entry in history],
        "loss_is_rounded_to_4_digits": all(round(e["loss"], 4) == e["loss"] for e in history if "loss" in e),
        "trainer_state": {k: rel(v) for k, v in state.items() if k != "log_history"},
        "saves": saves,
        "checkpoints_at_end": at_end,
        "final_model_is": final_model_is,
        "tensorboard": {
            "logging_dir_format": "%b%d_%H-%M-%S_<host>",
            "logging_dir_matches": re.sub(host, "<host>", runs[0]) if re.fullmatch(
                r"[A-Z][a-z]{2}\d{2}_\d{2}-\d{2}-\d{2}_" + host, runs[0]) else "UNEXPECTED " + runs[0],
            "event_files_match": [re.sub(host, "<host>", re.sub(r"tfevents\.\d{10}\.", "tfevents.<time>.", re.sub(
                r"\.\d+\.(\d+)$", r".<pid>.\1", f))) for f in files],
            "scalars": scalars,
            "text_summaries": texts,
        },
    }
    with open(OUT, "w") as f:
        json.dump(fixture, f, indent=1)
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
