#!/usr/bin/env python3
"""The int8 references of docs/performance.md ("INT8 evaluation"): a fine-tuned extractive-QA model
evaluated on a SQuAD v1.1 file with run_qa.py's pre- and post-processing, its linear layers int8 in
one of two engines:

  --engine onnxruntime    the model exported to ONNX (torch.onnx.export, opset 17, dynamic batch and
                          sequence axes) and quantized with onnxruntime.quantization.quantize_dynamic
                          (its defaults: QInt8 weights, dynamic u8 activations); the exported and
                          quantized files are made once by --prepare (timed and reported apart, as
                          `cpuft quantize` is) and run by onnxruntime.InferenceSession.
  --engine torch_dynamic  torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, qint8) applied at
                          load time (part of the timed run: it is how the API is used), forward under
                          torch.inference_mode().

    tools/int8_reference_qa.py --engine onnxruntime --prepare --model_name_or_path M --onnx_dir O
    /usr/bin/time -v tools/int8_reference_qa.py --engine onnxruntime --model_name_or_path M --onnx_dir O \
        --validation_file dev.json --threads 2 --per_device_eval_batch_size 32 --output_dir OUT

run_qa's prepare_validation_features, utils_qa.postprocess_qa_predictions and the official metric are the
re-typed references of tools/run_qa_features.py, tools/hf_reference_qa.py and tools/make_eval_reference.py. Writes
OUT/{eval_results.json, predictions.json, timings.json} and prints one JSON line.
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_eval_reference import postprocess_qa_predictions, squad_v1_compute  # noqa: E402
from hf_reference_qa import eval_features  # noqa: E402  (run_qa's evaluation windows)
from run_qa_features import load_squad  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", choices=["onnxruntime", "torch_dynamic"], required=True)
    p.add_argument("--model_name_or_path", required=True)
    p.add_argument("--onnx_dir", help="where --prepare writes model.onnx and model.int8.onnx (onnxruntime)")
    p.add_argument("--prepare", action="store_true", help="export and quantize to --onnx_dir, then stop")
    p.add_argument("--validation_file")
    p.add_argument("--output_dir")
    p.add_argument("--max_seq_length", type=int, default=384)
    p.add_argument("--doc_stride", type=int, default=128)
    p.add_argument("--max_eval_samples", type=int, default=None)
    p.add_argument("--per_device_eval_batch_size", type=int, default=32)
    p.add_argument("--threads", type=int, default=2)
    return p.parse_args()


def prepare_onnx(args):
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModelForQuestionAnswering

    os.makedirs(args.onnx_dir, exist_ok=True)
    t0 = time.perf_counter()
    model = AutoModelForQuestionAnswering.from_pretrained(args.model_name_or_path).eval()
    ids = torch.ones(2, 16, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "sequence"} for n in names + ["start_logits", "end_logits"]}
    fp32 = os.path.join(args.onnx_dir, "model.onnx")
    torch.onnx.export(model, (ids, torch.ones_like(ids), torch.zeros_like(ids)), fp32, input_names=names,
                      output_names=["start_logits", "end_logits"], dynamic_axes=axes, opset_version=17, dynamo=False)
    t1 = time.perf_counter()
    quantize_dynamic(fp32, os.path.join(args.onnx_dir, "model.int8.onnx"), weight_type=QuantType.QInt8)
    t2 = time.perf_counter()
    print(json.dumps({"export_s": t1 - t0, "quantize_s": t2 - t1}), flush=True)


class OrtRunner:
    def __init__(self, args):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = args.threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(os.path.join(args.onnx_dir, "model.int8.onnx"), opts,
                                            providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.version = "onnxruntime " + ort.__version__

    def __call__(self, batch):
        feed = {k: np.asarray(v, dtype=np.int64) for k, v in batch.items() if k in self.inputs}
        start, end = self.session.run(["start_logits", "end_logits"], feed)
        return start, end


class TorchDynamicRunner:
    def __init__(self, args):
        from transformers import AutoModelForQuestionAnswering

        model = AutoModelForQuestionAnswering.from_pretrained(args.model_name_or_path).eval()
        self.model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
        self.version = f"torch {torch.__version__} ({torch.backends.quantized.engine})"

    def __call__(self, batch):
        with torch.inference_mode():
            out = self.model(**{k: torch.tensor(v) for k, v in batch.items()})
        return out.start_logits.numpy(), out.end_logits.numpy()


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    if args.prepare:
        prepare_onnx(args)
        return
    from transformers import AutoTokenizer

    t_start = time.perf_counter()
    runner = OrtRunner(args) if args.engine == "onnxruntime" else TorchDynamicRunner(args)
    tok = AutoTokenizer.from_pretrained(args.model_name_or_path)
    t0 = time.perf_counter()
    examples, features, meta = eval_features(tok, load_squad(args.validation_file), args)
    cols = features.columns
    t1 = time.perf_counter()
    starts, ends = [], []
    n, bs = len(meta), args.per_device_eval_batch_size
    for b in range(0, n, bs):
        s, e = runner({c: v[b:b + bs] for c, v in cols.items()})
        starts.append(s)
        ends.append(e)
    t2 = time.perf_counter()
    files = postprocess_qa_predictions(examples, meta, np.concatenate(starts), np.concatenate(ends), False)
    predictions = json.loads(files["predictions"])
    refs = [{"id": e["id"], "answers": {"text": e["answer_texts"]}} for e in examples]
    metrics = squad_v1_compute(refs, predictions)
    t3 = time.perf_counter()
    metrics.update({"eval_features": n, "eval_examples": len(examples)})
    timings = {"load_s": t0 - t_start, "preprocess_s": t1 - t0, "inference_s": t2 - t1, "postprocess_s": t3 - t2,
               "engine": runner.version, "threads": args.threads}
    if args.output_dir:
        os.makedirs(args.output_dir, exist_ok=True)
        for name, obj in (("eval_results.json", metrics), ("timings.json", timings)):
            with open(os.path.join(args.output_dir, name), "w") as f:
                json.dump(obj, f, indent=2)
        with open(os.path.join(args.output_dir, "predictions.json"), "w") as f:
            f.write(files["predictions"])
    print(json.dumps({**metrics, **timings}), flush=True)


if __name__ == "__main__":
    main()
