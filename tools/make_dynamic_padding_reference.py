#!/usr/bin/env python3
"""Golden fixture for --pad_to_max_length false (tests/model/dynamic_padding_test.cc).

For the committed tiny DistilBERT and BERT models of tests/fixtures/model/ it writes
tests/fixtures/model/<name>/dynamic_padding.safetensors: three training windows of different lengths
(unpadded, as run_qa's prepare_train_features returns them with padding=False), collated the way
run_qa collates them with that flag, by transformers' DataCollatorWithPadding over the bundled uncased
tokenizer (tests/fixtures/text/: pad id 0, right padding, token type 0 and attention mask 0 on pads),
then one train-mode forward and backward (dropouts are 0): the collated batch, the logits, the loss
over the batch's positions and the gradient of every parameter ("grad.<name>").

  features.input_ids / .token_type_ids   the three windows back to back, unpadded
  features.lengths                       their lengths
  input_ids, token_type_ids, attention_mask, start_positions, end_positions   the collated batch
  start_logits, end_logits, loss, grad.*

Run offline:  HF_HUB_OFFLINE=1 python tools/make_dynamic_padding_reference.py   (torch, transformers)
"""
from pathlib import Path

import torch
from safetensors.torch import save_file
from transformers import (AutoModelForQuestionAnswering, BertTokenizerFast, DataCollatorWithPadding)

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "tests" / "fixtures" / "model"
TOKENIZER = ROOT / "tests" / "fixtures" / "text"
LENGTHS = (13, 21, 6)


def windows(gen):
    """Three unpadded windows: [CLS] question [SEP] context [SEP] with ids below the tiny vocab (100)."""
    feats = []
    for i, n in enumerate(LENGTHS):
        ids = torch.randint(5, 100, (n,), generator=gen).tolist()
        ids[0], ids[-1] = 1, 2
        q = max(1, n // 3)
        ids[q] = 2
        types = [0] * (q + 1) + [1] * (n - q - 1)
        start = min(n - 2, q + 1 + i)
        feats.append({"input_ids": ids, "token_type_ids": types, "attention_mask": [1] * n,
                      "start_positions": start, "end_positions": min(n - 2, start + 2)})
    return feats


def make(name, seed):
    model_dir = MODELS / name
    model = AutoModelForQuestionAnswering.from_pretrained(model_dir, attn_implementation="eager")
    tok = BertTokenizerFast.from_pretrained(TOKENIZER)
    assert tok.pad_token_id == 0 and tok.padding_side == "right"
    feats = windows(torch.Generator().manual_seed(seed))
    batch = DataCollatorWithPadding(tok)(feats)  # pads to the longest window, as run_qa with the flag
    is_bert = model.config.model_type == "bert"
    kw = {k: batch[k] for k in ("input_ids", "attention_mask", "start_positions", "end_positions")}
    if is_bert:
        kw["token_type_ids"] = batch["token_type_ids"]
    model.train()  # dropouts are 0
    out = model(**kw)
    out.loss.backward()
    ref = {"features.input_ids": torch.tensor(sum((f["input_ids"] for f in feats), [])),
           "features.token_type_ids": torch.tensor(sum((f["token_type_ids"] for f in feats), [])),
           "features.lengths": torch.tensor(LENGTHS),
           "start_logits": out.start_logits.detach(), "end_logits": out.end_logits.detach(),
           "loss": out.loss.detach().reshape(1)}
    for k in ("input_ids", "token_type_ids", "attention_mask", "start_positions", "end_positions"):
        ref[k] = batch[k]
    ref.update({"grad." + n: p.grad.detach().clone().float() for n, p in model.named_parameters()})
    ref = {k: v.contiguous() for k, v in ref.items()}
    save_file(ref, str(model_dir / "dynamic_padding.safetensors"))
    print(name, "batch", tuple(batch["input_ids"].shape), "loss", out.loss.item())


def main():
    make("distilbert", 7)
    make("bert_hd8", 8)


if __name__ == "__main__":
    main()
