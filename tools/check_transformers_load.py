#!/usr/bin/env python3
"""Proves that a model directory (e.g. one written by cpuft) loads in Hugging Face transformers.

  check_transformers_load.py DIR                          print the QA logits of a fixed input
  check_transformers_load.py DIR --reference FIX.json     compare them with FIX.json (exit 1 if they differ)
  check_transformers_load.py DIR --write-reference FIX.json   write FIX.json from this model

DIR is loaded with the Auto class of its config.json's architecture (AutoModelForQuestionAnswering,
AutoModelForSequenceClassification or AutoModelForTokenClassification) and AutoTokenizer, offline.
For classification models it prints (JSON) the architecture, id2label, problem_type and the logits of a
fixed sentence pair (sequence) or sentence (token); --reference / --write-reference are for QA models. The tokenizer encodes
(question, context) as a pair; the model runs in float32 eval mode. A fixture is JSON:
  {"question", "context", "input_ids", "token_type_ids", "attention_mask", "start_logits", "end_logits"}
When comparing, the fixture's input_ids must equal what the tokenizer produces (so a fixture written by
another engine also checks its tokenization), and every logit must agree within --atol + --rtol * |ref|.
Loading also fails (exit 1) if transformers reports missing or unexpected weights.
"""
import argparse
import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch
from transformers import (AutoModelForQuestionAnswering, AutoModelForSequenceClassification,
                          AutoModelForTokenClassification, AutoTokenizer)

QUESTION = "What is the capital of France?"
CONTEXT = "Paris is the capital and largest city of France. It lies on the river Seine."


def load(model_dir, auto_class):
    model, info = auto_class.from_pretrained(model_dir, output_loading_info=True, dtype=torch.float32)
    bad = {k: v for k, v in info.items() if k in ("missing_keys", "unexpected_keys", "mismatched_keys") and v}
    if bad:
        sys.exit(f"{model_dir}: transformers did not load every weight: {bad}")
    model.eval()
    return model


def run_classifier(model_dir, architecture):
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    sequence = architecture.endswith("ForSequenceClassification")
    model = load(model_dir, AutoModelForSequenceClassification if sequence else AutoModelForTokenClassification)
    enc = (tokenizer(QUESTION, CONTEXT, return_tensors="pt") if sequence else
           tokenizer(CONTEXT.split(), is_split_into_words=True, return_tensors="pt"))
    with torch.no_grad():
        logits = model(**enc).logits[0]
    return {"architecture": type(model).__name__, "id2label": model.config.id2label,
            "problem_type": model.config.problem_type, "logits": logits.tolist()}


def run(model_dir):
    with open(os.path.join(model_dir, "config.json")) as f:
        architecture = (json.load(f).get("architectures") or [""])[0]
    if architecture.endswith("ForSequenceClassification") or architecture.endswith("ForTokenClassification"):
        return run_classifier(model_dir, architecture)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = load(model_dir, AutoModelForQuestionAnswering)
    enc = tokenizer(QUESTION, CONTEXT, return_tensors="pt")
    with torch.no_grad():
        out = model(**enc)
    ids = enc["input_ids"][0].tolist()
    return {
        "question": QUESTION,
        "context": CONTEXT,
        "input_ids": ids,
        "token_type_ids": enc["token_type_ids"][0].tolist() if "token_type_ids" in enc else [0] * len(ids),
        "attention_mask": enc["attention_mask"][0].tolist(),
        "start_logits": out.start_logits[0].tolist(),
        "end_logits": out.end_logits[0].tolist(),
    }


def compare(got, ref, atol, rtol):
    if ref["input_ids"] != got["input_ids"]:
        return [f"input_ids differ: reference {ref['input_ids']} vs tokenizer {got['input_ids']}"]
    problems = []
    worst = 0.0
    for key in ("start_logits", "end_logits"):
        for i, (g, r) in enumerate(zip(got[key], ref[key])):
            worst = max(worst, abs(g - r))
            if abs(g - r) > atol + rtol * abs(r):
                problems.append(f"{key}[{i}]: transformers {g:.7g} vs reference {r:.7g}")
        if len(got[key]) != len(ref[key]):
            problems.append(f"{key}: {len(got[key])} values vs {len(ref[key])} in the reference")
    print(f"max |difference| = {worst:.3g}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model_dir")
    ap.add_argument("--reference", help="fixture to compare the logits with")
    ap.add_argument("--write-reference", help="write this model's logits as a fixture")
    ap.add_argument("--atol", type=float, default=1e-4)
    ap.add_argument("--rtol", type=float, default=1e-4)
    args = ap.parse_args()

    got = run(args.model_dir)
    if args.write_reference:
        with open(args.write_reference, "w") as f:
            json.dump(got, f, indent=1)
            f.write("\n")
        print(f"wrote {args.write_reference}")
    if args.reference:
        with open(args.reference) as f:
            ref = json.load(f)
        problems = compare(got, ref, args.atol, args.rtol)
        if problems:
            print(f"{args.model_dir}: {len(problems)} mismatches with {args.reference}:")
            print("\n".join(problems[:20]))
            sys.exit(1)
        print(f"{args.model_dir}: matches {args.reference}")
    if not args.write_reference and not args.reference:
        print(json.dumps(got))


if __name__ == "__main__":
    main()
