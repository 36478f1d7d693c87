#!/usr/bin/env python3
"""Writes the small reference model directories of tests/fixtures/io/ with the real transformers writer.

Each directory holds config.json + model.safetensors exactly as transformers save_pretrained wrote them
for a tiny randomly initialised model (seeded), so the C++ reader is tested on real files and the C++
writer can be compared byte for byte with the reference writer.

  distilbert_qa/  DistilBertForQuestionAnswering (keys "distilbert.*", "qa_outputs.*")
  bert_qa/        BertForQuestionAnswering       (keys "bert.*", "qa_outputs.*")
  bert_legacy/    bert_qa's tensors with LayerNorm.weight/bias renamed to gamma/beta (old BERT files),
                  written with safetensors.torch.save_file and metadata {"format": "pt"}
  bert_bare/      BertModel (no "bert." prefix, with a pooler), as MiniLM / sentence-transformers ship
  VOCAB below is a 58-token uncased vocabulary; distilbert_qa/ and bert_qa/ carry it as a tokenizer
  mixed.safetensors  I64, F32 and BF16 tensors (scalar, empty, "layer.10" vs "layer.2", upper case,
                  metadata {"format": "pt"}) from safetensors.torch.save_file, for the writer's ordering.
                  (The reference writes several metadata entries in random HashMap order, so one only.)
  *.json          fixed-input logits of distilbert_qa/ and bert_qa/ (tools/check_transformers_load.py)

Run offline:  HF_HUB_OFFLINE=1 /work/pyref/bin/python tools/make_io_fixtures.py
"""
import os
import subprocess
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch
from safetensors.torch import save_file
from transformers import (BertConfig, BertForQuestionAnswering, BertModel, BertTokenizerFast,
                          DistilBertConfig, DistilBertForQuestionAnswering)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "io")

# Enough words for the fixed input of check_transformers_load.py plus some word pieces.
VOCAB = (["[PAD]"] + [f"[unused{i}]" for i in range(3)] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]"] +
         [".", ",", "?", "'", "-", "a", "the", "of", "is", "in", "what", "which", "where", "who",
          "capital", "france", "paris", "city", "river", "seine", "on", "and", "largest", "its",
          "it", "was", "by", "founded", "century", "##s", "##ed", "##ing", "##ly", "##er", "name",
          "country", "europe", "population", "people", "million", "about", "has", "lies", "##ian",
          "north", "south", "french", "germany", "berlin", "west"])


def tiny_bert_config():
    return BertConfig(vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                      intermediate_size=48, max_position_embeddings=64, type_vocab_size=2)


def tiny_distilbert_config():
    return DistilBertConfig(vocab_size=len(VOCAB), dim=32, n_layers=2, n_heads=4, hidden_dim=48,
                            max_position_embeddings=64)


def save_with_tokenizer(model, name):
    out = os.path.join(ROOT, name)
    model.save_pretrained(out)
    vocab = {token: i for i, token in enumerate(VOCAB)}  # transformers 5 takes the vocabulary itself
    BertTokenizerFast(vocab=vocab, do_lower_case=True).save_pretrained(out)
    return out


def main():
    os.makedirs(ROOT, exist_ok=True)
    torch.manual_seed(1234)
    distil = save_with_tokenizer(DistilBertForQuestionAnswering(tiny_distilbert_config()).eval(), "distilbert_qa")
    torch.manual_seed(5678)
    bert_model = BertForQuestionAnswering(tiny_bert_config()).eval()
    bert = save_with_tokenizer(bert_model, "bert_qa")

    legacy = {}
    for k, v in bert_model.state_dict().items():
        k = k.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta")
        legacy[k] = v.contiguous()
    os.makedirs(os.path.join(ROOT, "bert_legacy"), exist_ok=True)
    save_file(legacy, os.path.join(ROOT, "bert_legacy", "model.safetensors"), metadata={"format": "pt"})
    bert_model.config.to_json_file(os.path.join(ROOT, "bert_legacy", "config.json"))

    torch.manual_seed(91011)
    BertModel(tiny_bert_config()).eval().save_pretrained(os.path.join(ROOT, "bert_bare"))

    mixed = {
        "step": torch.tensor(7, dtype=torch.int64),
        "ids": torch.arange(-3, 3, dtype=torch.int64).reshape(2, 3),
        "layer.10.w": torch.linspace(-1, 1, 6).reshape(3, 2),
        "layer.2.w": torch.tensor([1.5, -2.25, 1e-30, float("inf")]),
        "Upper.b": torch.tensor([3.0]),
        "empty": torch.zeros(0, 4),
        "half.bf16": torch.tensor([1.0, -0.5, 3.140625], dtype=torch.bfloat16),
        "a.bf16": torch.tensor([[2.0]], dtype=torch.bfloat16),
    }
    save_file(mixed, os.path.join(ROOT, "mixed.safetensors"), metadata={"format": "pt"})

    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_transformers_load.py")
    for d in (distil, bert):
        subprocess.run([sys.executable, tool, d, "--write-reference", d + "_logits.json"], check=True)


if __name__ == "__main__":
    main()
