#!/usr/bin/env python3
"""Golden fixtures for the classification heads (phase 2 of the text / token classification jobs), from
transformers on PyTorch, in the format of tools/make_model_reference.py.

For the tiny random DistilBERT and BERT (head_dim 8) configs of make_model_reference.py it builds
  *ForSequenceClassification with 3 labels (single_label_classification: cross-entropy),
  *ForSequenceClassification with 1 label (regression: MSE on float labels),
  *ForTokenClassification with 5 labels (cross-entropy, -100 on special tokens, padding and sub-tokens),
and writes into tests/fixtures/model/<family>_<head>/:
  config.json, model.safetensors   as save_pretrained writes them after a forward pass with labels (so
                                   config.json holds the problem_type transformers sets, id2label, label2id,
                                   architectures)
  reference.safetensors            input_ids, attention_mask, token_type_ids, labels, logits, loss, the
                                   gradient of every parameter ("grad.<name>"), and the same under CPU bf16
                                   autocast ("bf16.logits", "bf16.loss", "bf16.grad.<name>")
Dropouts are 0 (dropout, attention_dropout, seq_classif_dropout / hidden_dropout_prob, classifier_dropout
unset) so that gradients are deterministic; eager attention. A model whose DistilBERT pre_classifier puts a
unit on the other side of its ReLU under autocast than in f32 is drawn again from another seed
(relu_flips): its autocast gradients would follow another path than any other bf16 computation's.

Run offline:  HF_HUB_OFFLINE=1 /work/venvs/t215/bin/python tools/make_task_head_reference.py
"""
import sys
from pathlib import Path

import torch
from safetensors.torch import save_file
from transformers import (BertConfig, BertForSequenceClassification, BertForTokenClassification,
                          DistilBertForSequenceClassification, DistilBertForTokenClassification)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_model_reference import tiny_configs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "model"
B, T = 3, 16
VALID = (16, 11, 6)  # real tokens per row; the rest is padding


def inputs(gen):
    ids = torch.randint(1, 100, (B, T), generator=gen)
    mask = torch.ones(B, T, dtype=torch.long)
    types = torch.zeros(B, T, dtype=torch.long)
    for b, valid in enumerate(VALID):
        mask[b, valid:] = 0
        ids[b, valid:] = 0
        types[b, valid // 2:valid] = 1
    return ids, mask, types


def labels_for(head, gen):
    if head == "seqcls3":
        return torch.tensor([2, 0, 1])
    if head == "seqreg":
        return torch.tensor([0.5, 3.75, -1.25])
    labels = torch.randint(0, 5, (B, T), generator=gen)
    for b, valid in enumerate(VALID):
        labels[b, 0] = -100          # [CLS]
        labels[b, valid - 1:] = -100  # [SEP] and padding
        labels[b, 2:valid:3] = -100   # sub-tokens after a word's first
    return labels


def grads_of(model, prefix):
    return {f"{prefix}grad.{n}": p.grad.detach().clone().float() for n, p in model.named_parameters()}


def build(family, config, head, cls, seed):
    torch.manual_seed(seed)
    config = config.__class__(**config.to_dict())
    config._attn_implementation = "eager"
    if family == "distilbert":
        config.seq_classif_dropout = 0.0
    config.num_labels = {"seqcls3": 3, "seqreg": 1, "tokcls": 5}[head]
    if head == "seqcls3":
        config.id2label = {0: "contradiction", 1: "entailment", 2: "neutral"}
        config.label2id = {v: k for k, v in config.id2label.items()}
    model = cls(config)
    model.config._attn_implementation = "eager"
    gen = torch.Generator().manual_seed(seed + 1)
    ids, mask, types = inputs(gen)
    labels = labels_for(head, gen)
    kw = dict(input_ids=ids, attention_mask=mask, labels=labels)
    if isinstance(config, BertConfig):
        kw["token_type_ids"] = types
    ref = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types, "labels": labels}
    model.train()  # dropouts are 0: deterministic
    return model, kw, ref


def relu_flips(model, kw):
    """Units of DistilBERT's pre_classifier (the ReLU before the sequence head) whose sign differs between
    f32 and bf16 autocast: there the two runs send gradient down different paths, and the bf16 reference
    differs from f32 (and from any other bf16 computation) by far more than bf16's rounding."""
    if not hasattr(model, "pre_classifier"):
        return 0
    pre = []
    handle = model.pre_classifier.register_forward_hook(lambda mod, inp, out: pre.append(out.detach().float()))
    with torch.no_grad():
        model(**kw)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            model(**kw)
    handle.remove()
    return int(((pre[0] > 0) != (pre[1] > 0)).sum())


def make(family, config, head, cls, seed):
    # A seed whose model puts a pre_classifier unit on the other side of the ReLU's kink under autocast is
    # replaced by seed + 1000 (and so on); the seeds of the fixtures that never had one are unchanged.
    for attempt in range(10):
        model, kw, ref = build(family, config, head, cls, seed + 1000 * attempt)
        if relu_flips(model, kw) == 0:
            break
    else:
        sys.exit(f"{family}_{head}: every seed tried puts a ReLU unit at its kink under autocast")
    out = model(**kw)
    out.loss.backward()
    ref.update(logits=out.logits.detach(), loss=out.loss.detach().reshape(1))
    ref.update(grads_of(model, ""))
    model.zero_grad(set_to_none=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(**kw)
    out.loss.float().backward()
    ref.update({"bf16.logits": out.logits.detach().float(), "bf16.loss": out.loss.detach().float().reshape(1)})
    ref.update(grads_of(model, "bf16."))
    model.zero_grad(set_to_none=True)
    out_dir = OUT / f"{family}_{head}"
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir, safe_serialization=True)  # after the forward: problem_type is set
    save_file({k: v.contiguous() for k, v in ref.items()}, str(out_dir / "reference.safetensors"))
    print(out_dir.name, "seed", seed + 1000 * attempt, "problem_type", model.config.problem_type, "loss", ref["loss"].item())


def main():
    configs = tiny_configs()
    heads = {"distilbert": {"seqcls3": DistilBertForSequenceClassification, "seqreg": DistilBertForSequenceClassification,
                            "tokcls": DistilBertForTokenClassification},
             "bert": {"seqcls3": BertForSequenceClassification, "seqreg": BertForSequenceClassification,
                      "tokcls": BertForTokenClassification}}
    seed = 200
    for family, key in (("distilbert", "distilbert"), ("bert", "bert_hd8")):
        config = configs[key][0]
        for head, cls in heads[family].items():
            make(family, config, head, cls, seed)
            seed += 10


if __name__ == "__main__":
    main()
