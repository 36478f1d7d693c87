#!/usr/bin/env python3
"""Post-processing of fixed pseudo-random logits on real dev features: tests/fixtures/eval/dev_logits_case.json.

The first N_EXAMPLES questions of ../shared/data/squad/dev-v1.1.json (the optional SQuAD files beside the
repository, docs/parity.md, Fixtures) are turned into evaluation features at
(384, 128) by the fast tokenizer exactly as run_qa's prepare_validation_features (tools/make_text_reference.py),
given logits from the integer hash below (cpuft's test computes the same float32 values), and post-processed
by the utils_qa reference of tools/make_eval_reference.py; the fixture holds predictions.json byte for byte and
the SQuAD v1.1 metric values. Offline:
  HF_HUB_OFFLINE=1 /work/pyref/bin/python tools/make_dev_logits_reference.py
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_eval_reference as ref  # noqa: E402
import make_text_reference as text  # noqa: E402

N_EXAMPLES = 300
MAX_LEN, STRIDE = 384, 128
MASK = 0xFFFFFFFF


def logit(feature, token, which):
    """A float32 in [-31.25, 31.25] with a 1/64 step (exact in float32), from an integer hash."""
    x = (feature * 2654435761 + token * 40503 + which * 97 + 12345) & MASK
    x ^= x >> 15
    x = (x * 2246822519) & MASK
    x ^= x >> 13
    return np.float32((x % 4001) - 2000) / np.float32(64)


def main():
    with open(os.path.join(text.SQUAD, "dev-v1.1.json"), encoding="utf-8") as f:
        data = json.load(f)["data"]
    examples = []
    for article in data:
        for para in article["paragraphs"]:
            for qa in para["qas"]:
                examples.append({"id": qa["id"], "question": qa["question"], "context": para["context"],
                                 "answers": {"text": [a["text"] for a in qa["answers"]]}})
    examples = examples[:N_EXAMPLES]
    tok = text.tokenizer_settings()["uncased"]
    enc = text.tokenize_batch(tok, [e["question"] for e in examples], [e["context"] for e in examples],
                              MAX_LEN, STRIDE)
    features, starts, ends = [], [], []
    for i in range(len(enc["input_ids"])):
        seq = enc.sequence_ids(i)
        features.append({"example_id": examples[enc["overflow_to_sample_mapping"][i]]["id"],
                         "offset_mapping": [o if s == 1 else None for o, s in zip(enc["offset_mapping"][i], seq)]})
        starts.append(np.array([logit(i, j, 0) for j in range(MAX_LEN)], dtype=np.float32))
        ends.append(np.array([logit(i, j, 1) for j in range(MAX_LEN)], dtype=np.float32))
    files = ref.postprocess_qa_predictions(examples, features, starts, ends, False)
    metrics = ref.squad_v1_compute(examples, json.loads(files["predictions"]))
    out = {"examples": N_EXAMPLES, "max_seq_length": MAX_LEN, "doc_stride": STRIDE, "features": len(features),
           "predictions_json": files["predictions"], "exact_match": metrics["exact_match"], "f1": metrics["f1"]}
    path = os.path.join(ref.OUT, "dev_logits_case.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(len(features), "features", metrics, file=sys.stderr)


if __name__ == "__main__":
    main()
