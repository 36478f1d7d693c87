#!/usr/bin/env python3
"""Golden fixtures for the classification metrics and prediction files (tests/eval/), from the libraries
run_glue.py and run_ner.py score with through `evaluate`.

`evaluate.load(...)` fetches its metric scripts from the Hub, which this machine cannot reach, so the
values come from the calls those scripts make: "accuracy" (sklearn accuracy_score), "f1" and GLUE's
MRPC / QQP set (sklearn f1_score, pos_label 1), "mse" (sklearn mean_squared_error), GLUE's STS-B set
(scipy.stats pearsonr / spearmanr), and "seqeval" (seqeval classification_report(output_dict=True) in
the default mode + accuracy_score, reshaped into overall_* and per-type dicts as evaluate returns them).
run_glue's compute_metrics adds combined_score = np.mean(values) when a metric returns more than one;
run_ner's compute_metrics keeps precision / recall / f1 / accuracy, or flattens the per-type dicts
with --return_entity_level_metrics. Regression inputs are float32, as the Trainer hands them over.

Writes tests/fixtures/eval/task_metric_cases.json:
  classification  class predictions / references with accuracy, f1, and the MRPC-style set
  regression      float32 predictions / references with mse, pearson, spearmanr, combined_score
  argmax          logit rows (ties, NaN) and np.argmax(axis=1)
  seqeval         tag sequences (IOB1, IOB2, IOBES, odd prefixes, no entities, all wrong, random) with
                  get_entities of each side, evaluate's overall / per-type scores and run_ner's metric dicts
  predict_files   run_glue's predict_results text (labels and f"{x:3.3f}" of float32) and run_ner's
                  predictions.txt text

Run offline:  HF_HUB_OFFLINE=1 /work/venvs/t215/bin/python tools/make_task_eval_reference.py
"""
import json
import random
import warnings
from pathlib import Path

import numpy as np
import scipy
import seqeval
import sklearn
from scipy.stats import pearsonr, spearmanr
from seqeval.metrics import accuracy_score as seq_accuracy
from seqeval.metrics import classification_report
from seqeval.metrics.sequence_labeling import get_entities
from sklearn.metrics import accuracy_score, f1_score, mean_squared_error

warnings.filterwarnings("ignore")
ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "eval" / "task_metric_cases.json"


def num(x):
    """A float for JSON: NaN as null."""
    x = float(x)
    return None if x != x else x


def classification_case(name, preds, refs):
    preds, refs = np.array(preds), np.array(refs)
    case = {"name": name, "predictions": preds.tolist(), "references": refs.tolist(),
            "accuracy": float(accuracy_score(refs, preds))}
    if set(preds.tolist()) | set(refs.tolist()) <= {0, 1}:
        acc = float((preds == refs).mean())
        f1 = float(f1_score(y_true=refs, y_pred=preds))
        result = {"accuracy": acc, "f1": f1}
        result["combined_score"] = np.mean(list(result.values())).item()
        case["f1"] = float(f1_score(refs, preds, pos_label=1, average="binary"))
        case["mrpc"] = result
    return case


def regression_case(name, preds, refs):
    p, r = np.array(preds, dtype=np.float32), np.array(refs, dtype=np.float32)
    stsb = {"pearson": float(pearsonr(p, r)[0]), "spearmanr": float(spearmanr(p, r)[0])}
    stsb["combined_score"] = np.mean(list(stsb.values())).item()
    return {"name": name, "predictions": p.tolist(), "references": r.tolist(),
            "mse": float(mean_squared_error(r, p)),
            "pearson": num(stsb["pearson"]), "spearmanr": num(stsb["spearmanr"]),
            "combined_score": num(stsb["combined_score"]),
            "pearson_f64": num(pearsonr(p.astype(np.float64), r.astype(np.float64))[0]),
            "spearmanr_f64": num(spearmanr(p.astype(np.float64), r.astype(np.float64))[0]),
            "ranks": scipy.stats.rankdata(p).tolist()}


def seqeval_case(name, predictions, references):
    report = classification_report(y_true=references, y_pred=predictions, output_dict=True)
    report.pop("macro avg")
    report.pop("weighted avg")
    overall = report.pop("micro avg")
    scores = {t: {"precision": float(s["precision"]), "recall": float(s["recall"]), "f1": float(s["f1-score"]),
                  "number": int(s["support"])} for t, s in report.items()}
    scores["overall_precision"] = float(overall["precision"])
    scores["overall_recall"] = float(overall["recall"])
    scores["overall_f1"] = float(overall["f1-score"])
    scores["overall_accuracy"] = float(seq_accuracy(y_true=references, y_pred=predictions))
    flat = {}
    for key, value in scores.items():
        if isinstance(value, dict):
            for n, v in value.items():
                flat[f"{key}_{n}"] = v
        else:
            flat[key] = value
    return {"name": name, "predictions": predictions, "references": references,
            "entities_predictions": [list(e) for e in get_entities(predictions)],
            "entities_references": [list(e) for e in get_entities(references)],
            "scores": scores,
            "run_ner": {"precision": scores["overall_precision"], "recall": scores["overall_recall"],
                        "f1": scores["overall_f1"], "accuracy": scores["overall_accuracy"]},
            "run_ner_entity_level": [[k, v] for k, v in flat.items()]}


def main():
    rng = random.Random(26)
    np_rng = np.random.default_rng(26)
    cls = [classification_case("binary_random", [rng.randint(0, 1) for _ in range(57)],
                               [rng.randint(0, 1) for _ in range(57)]),
           classification_case("all_right", [1, 0, 1, 1], [1, 0, 1, 1]),
           classification_case("all_wrong", [1, 0, 1, 0], [0, 1, 0, 1]),
           classification_case("no_positive_prediction", [0, 0, 0], [1, 0, 1]),
           classification_case("no_positive_anywhere", [0, 0], [0, 0]),
           classification_case("single_example", [1], [1]),
           classification_case("three_classes", [rng.randint(0, 2) for _ in range(31)],
                               [rng.randint(0, 2) for _ in range(31)])]
    reg = [regression_case("random", np_rng.normal(2.5, 1.2, 40).tolist(), np_rng.uniform(0, 5, 40).tolist()),
           regression_case("ties", [1, 2, 2, 3, 3, 3, 0.5, 2], [0.5, 1, 1, 1, 4, 2, 2, 5]),
           regression_case("perfect", [0.1, 0.2, 0.3, 0.4], [1, 2, 3, 4]),
           regression_case("anti", [4, 3, 2, 1], [0.25, 1.5, 2.75, 4.0]),
           regression_case("constant_prediction", [2, 2, 2], [1, 2, 3]),
           regression_case("stsb_like", (np_rng.uniform(0, 5, 64).round(1)).tolist(),
                           (np_rng.uniform(0, 5, 64).round(2)).tolist())]
    logits = np.array([[0.1, 0.5, 0.5], [2.0, -1.0, 2.0], [np.nan, 1.0, 3.0], [1.0, np.nan, np.nan], [-3, -2, -1],
                       [0, 0, 0]], dtype=np.float32)
    argmax = {"logits": [[None if v != v else float(v) for v in row] for row in logits.tolist()],
              "argmax": np.argmax(logits, axis=1).tolist()}
    tags = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-MISC", "I-MISC", "E-PER", "S-LOC", "I-ORG"]
    rand_ref = [[rng.choice(tags) for _ in range(rng.randint(0, 12))] for _ in range(80)]
    rand_pred = [[t if rng.random() < 0.7 else rng.choice(tags) for t in s] for s in rand_ref]
    seq = [seqeval_case("seqeval_readme", [["O", "O", "B-MISC", "I-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]],
                        [["O", "O", "O", "B-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]),
           seqeval_case("iob1_inside_starts", [["I-PER", "I-PER", "O", "I-LOC", "B-LOC", "I-LOC"]],
                        [["I-PER", "I-PER", "O", "I-LOC", "I-LOC", "B-LOC"]]),
           seqeval_case("iobes", [["S-PER", "B-LOC", "I-LOC", "E-LOC", "O", "E-PER", "S-LOC", "I-LOC"]],
                        [["S-PER", "B-LOC", "E-LOC", "O", "O", "B-PER", "E-PER", "S-LOC"]]),
           seqeval_case("no_entities", [["O", "O"], ["O"]], [["O", "O"], ["O"]]),
           seqeval_case("predicted_none", [["O", "O", "O"]], [["B-PER", "I-PER", "O"]]),
           seqeval_case("all_wrong", [["B-LOC", "O", "B-PER"]], [["O", "B-PER", "O"]]),
           seqeval_case("type_change_and_odd_prefixes", [["B-PER", "I-LOC", "B", "I", "B-a-b", "I-a-b", ".-X", "X-Y", "Ü-Z"]],
                        [["B-PER", "I-PER", "B", "B", "B-a-b", "I-a", ".-X", "X-Y", "Ü-Z"]]),
           seqeval_case("entity_at_sentence_ends", [["B-PER", "I-PER"], ["I-PER", "O"], []],
                        [["B-PER", "I-PER"], ["B-PER", "O"], []]),
           seqeval_case("random", rand_pred, rand_ref)]
    values = np.array([0.0005, 0.0015, -0.0004, 1234.5678, 2.5, -3.25, 0.1, 1e-8, -1e-8, 3.9999, 123456789.0,
                       float("inf"), float("-inf"), float("nan")], dtype=np.float32)
    predict = {"labels": ["entailment", "neutral", "10", "True", "naïve"],
               "labels_text": "index\tprediction\n" + "".join(f"{i}\t{item}\n" for i, item in
                                                            enumerate(["entailment", "neutral", "10", "True", "naïve"])),
               "values": [float(v) if np.isfinite(v) else str(v) for v in values.tolist()],  # "inf", "nan"
               "values_text": "index\tprediction\n" + "".join(f"{i}\t{item:3.3f}\n" for i, item in enumerate(values)),
               "ner_sentences": [["B-PER", "I-PER", "O"], [], ["O"]],
               "ner_text": "".join(" ".join(p) + "\n" for p in [["B-PER", "I-PER", "O"], [], ["O"]])}
    out = {"versions": {"numpy": np.__version__, "scipy": scipy.__version__, "sklearn": sklearn.__version__,
                        "seqeval": getattr(seqeval, "__version__", "1.2.2")},
           "classification": cls, "regression": reg, "argmax": argmax, "seqeval": seq, "predict_files": predict}
    OUT.write_text(json.dumps(out, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n")
    print(OUT, len(cls), len(reg), len(seq))


if __name__ == "__main__":
    main()
