#!/usr/bin/env python3
"""Reference fixtures for cpuft's eval module: tests/fixtures/eval/*.json (except dev_logits_case.json,
tools/make_dev_logits_reference.py).

Run offline with the project venv:  HF_HUB_OFFLINE=1 /work/pyref/bin/python tools/make_eval_reference.py

The `evaluate` package and transformers' examples/utils_qa.py are not installed, so THIS FILE holds
the reference: the official SQuAD v1.1 / v2.0 scoring (evaluate's metrics/squad/compute_score.py and
metrics/squad_v2/compute_score.py) and utils_qa.postprocess_qa_predictions, re-typed line for line
with numpy (docs/parity.md, Post-processing and Metrics).

Data: questions and contexts come from the SQuAD v1.1 dev set (../shared/data/squad/dev-v1.1.json,
beside the repository and not part of it, docs/parity.md Fixtures; CC BY-SA 4.0); the fixtures derived from
it carry that licence (tests/fixtures/eval/README.md).
"""
import collections
import json
import os
import random
import re
import string
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEV = os.path.join(ROOT, "..", "shared", "data", "squad", "dev-v1.1.json")
OUT = os.path.join(ROOT, "tests", "fixtures", "eval")


# ----------------------------------------------------------------- official SQuAD v1.1 metric
def normalize_answer(s):
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def f1_score(prediction, ground_truth):
    prediction_tokens = normalize_answer(prediction).split()
    ground_truth_tokens = normalize_answer(ground_truth).split()
    common = collections.Counter(prediction_tokens) & collections.Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    f1 = (2 * precision * recall) / (precision + recall)
    return f1


def exact_match_score(prediction, ground_truth):
    return normalize_answer(prediction) == normalize_answer(ground_truth)


def metric_max_over_ground_truths(metric_fn, prediction, ground_truths):
    scores_for_ground_truths = []
    for ground_truth in ground_truths:
        score = metric_fn(prediction, ground_truth)
        scores_for_ground_truths.append(score)
    return max(scores_for_ground_truths)


def squad_v1_compute(references, predictions):
    """evaluate's squad metric: references [{id, answers: {text: [...]}}], predictions {id: text}."""
    f1 = exact_match = total = 0
    for qa in references:
        total += 1
        if qa["id"] not in predictions:
            continue
        ground_truths = qa["answers"]["text"]
        prediction = predictions[qa["id"]]
        exact_match += metric_max_over_ground_truths(exact_match_score, prediction, ground_truths)
        f1 += metric_max_over_ground_truths(f1_score, prediction, ground_truths)
    return {"exact_match": 100.0 * exact_match / total, "f1": 100.0 * f1 / total}


# ----------------------------------------------------------------- official SQuAD v2.0 metric
ARTICLES_REGEX = re.compile(r"\b(a|an|the)\b", re.UNICODE)


def normalize_answer_v2(s):
    def remove_articles(text):
        return ARTICLES_REGEX.sub(" ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def get_tokens(s):
    if not s:
        return []
    return normalize_answer_v2(s).split()


def compute_exact(a_gold, a_pred):
    return int(normalize_answer_v2(a_gold) == normalize_answer_v2(a_pred))


def compute_f1(a_gold, a_pred):
    gold_toks = get_tokens(a_gold)
    pred_toks = get_tokens(a_pred)
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    num_same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return int(gold_toks == pred_toks)
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(pred_toks)
    recall = 1.0 * num_same / len(gold_toks)
    f1 = (2 * precision * recall) / (precision + recall)
    return f1


def squad_v2_compute(references, predictions):
    """evaluate's squad_v2 metric with run_qa's no-answer probabilities (all 0.0, threshold 1.0).
    references [{id, answers: {text}}], predictions [{id, prediction_text, no_answer_probability}]."""
    no_answer_threshold = 1.0
    na_probs = {p["id"]: p["no_answer_probability"] for p in predictions}
    preds = {p["id"]: p["prediction_text"] for p in predictions}
    qid_to_has_ans = {qa["id"]: bool(qa["answers"]["text"]) for qa in references}
    has_ans_qids = [k for k, v in qid_to_has_ans.items() if v]
    no_ans_qids = [k for k, v in qid_to_has_ans.items() if not v]
    exact_scores, f1_scores = {}, {}
    for qa in references:
        qid = qa["id"]
        gold_answers = [t for t in qa["answers"]["text"] if normalize_answer_v2(t)]
        if not gold_answers:
            gold_answers = [""]
        if qid not in preds:
            continue
        a_pred = preds[qid]
        exact_scores[qid] = max(compute_exact(a, a_pred) for a in gold_answers)
        f1_scores[qid] = max(compute_f1(a, a_pred) for a in gold_answers)

    def apply_no_ans_threshold(scores):
        new_scores = {}
        for qid, s in scores.items():
            pred_na = na_probs[qid] > no_answer_threshold
            new_scores[qid] = float(not qid_to_has_ans[qid]) if pred_na else s
        return new_scores

    def make_eval_dict(exact, f1, qid_list=None):
        if not qid_list:
            total = len(exact)
            return collections.OrderedDict([("exact", 100.0 * sum(exact.values()) / total),
                                            ("f1", 100.0 * sum(f1.values()) / total), ("total", total)])
        total = len(qid_list)
        return collections.OrderedDict([("exact", 100.0 * sum(exact[k] for k in qid_list) / total),
                                        ("f1", 100.0 * sum(f1[k] for k in qid_list) / total), ("total", total)])

    def find_best_thresh(scores):
        num_no_ans = sum(1 for k in qid_to_has_ans if not qid_to_has_ans[k])
        cur_score = num_no_ans
        best_score = cur_score
        best_thresh = 0.0
        qid_list = sorted(na_probs, key=lambda k: na_probs[k])
        for qid in qid_list:
            if qid not in scores:
                continue
            if qid_to_has_ans[qid]:
                diff = scores[qid]
            else:
                diff = -1 if preds[qid] else 0
            cur_score += diff
            if cur_score > best_score:
                best_score = cur_score
                best_thresh = na_probs[qid]
        return 100.0 * best_score / len(scores), best_thresh

    exact_thresh = apply_no_ans_threshold(exact_scores)
    f1_thresh = apply_no_ans_threshold(f1_scores)
    out = make_eval_dict(exact_thresh, f1_thresh)
    if has_ans_qids:
        for k, v in make_eval_dict(exact_thresh, f1_thresh, qid_list=has_ans_qids).items():
            out["HasAns_" + k] = v
    if no_ans_qids:
        for k, v in make_eval_dict(exact_thresh, f1_thresh, qid_list=no_ans_qids).items():
            out["NoAns_" + k] = v
    out["best_exact"], out["best_exact_thresh"] = find_best_thresh(exact_scores)
    out["best_f1"], out["best_f1_thresh"] = find_best_thresh(f1_scores)
    return dict(out)


# ----------------------------------------------------------------- utils_qa post-processing
def top_indexes(logits, n_best_size):
    # Reference choice (docs/parity.md, Post-processing): numpy's default argsort orders ties by its sort
    # implementation; "stable ascending, then reversed" (ties: larger index first) is what cpuft does.
    return np.argsort(logits, kind="stable")[-1 : -n_best_size - 1 : -1].tolist()


def postprocess_qa_predictions(examples, features, all_start_logits, all_end_logits, version_2_with_negative,
                               n_best_size=20, max_answer_length=30, null_score_diff_threshold=0.0):
    example_id_to_index = {k: i for i, k in enumerate(e["id"] for e in examples)}
    features_per_example = collections.defaultdict(list)
    for i, feature in enumerate(features):
        features_per_example[example_id_to_index[feature["example_id"]]].append(i)
    all_predictions = collections.OrderedDict()
    all_nbest_json = collections.OrderedDict()
    scores_diff_json = collections.OrderedDict() if version_2_with_negative else None
    for example_index, example in enumerate(examples):
        feature_indices = features_per_example[example_index]
        min_null_prediction = None
        prelim_predictions = []
        for feature_index in feature_indices:
            start_logits = all_start_logits[feature_index]
            end_logits = all_end_logits[feature_index]
            offset_mapping = features[feature_index]["offset_mapping"]
            token_is_max_context = features[feature_index].get("token_is_max_context", None)
            feature_null_score = start_logits[0] + end_logits[0]
            if min_null_prediction is None or min_null_prediction["score"] > feature_null_score:
                min_null_prediction = {"offsets": (0, 0), "score": feature_null_score,
                                       "start_logit": start_logits[0], "end_logit": end_logits[0]}
            start_indexes = top_indexes(start_logits, n_best_size)
            end_indexes = top_indexes(end_logits, n_best_size)
            for start_index in start_indexes:
                for end_index in end_indexes:
                    if (start_index >= len(offset_mapping) or end_index >= len(offset_mapping)
                            or offset_mapping[start_index] is None or len(offset_mapping[start_index]) < 2
                            or offset_mapping[end_index] is None or len(offset_mapping[end_index]) < 2):
                        continue
                    if end_index < start_index or end_index - start_index + 1 > max_answer_length:
                        continue
                    if token_is_max_context is not None and not token_is_max_context.get(str(start_index), False):
                        continue
                    prelim_predictions.append({
                        "offsets": (offset_mapping[start_index][0], offset_mapping[end_index][1]),
                        "score": start_logits[start_index] + end_logits[end_index],
                        "start_logit": start_logits[start_index], "end_logit": end_logits[end_index]})
        if version_2_with_negative and min_null_prediction is not None:
            prelim_predictions.append(min_null_prediction)
            null_score = min_null_prediction["score"]
        predictions = sorted(prelim_predictions, key=lambda x: x["score"], reverse=True)[:n_best_size]
        if (version_2_with_negative and min_null_prediction is not None
                and not any(p["offsets"] == (0, 0) for p in predictions)):
            predictions.append(min_null_prediction)
        context = example["context"]
        for pred in predictions:
            offsets = pred.pop("offsets")
            pred["text"] = context[offsets[0] : offsets[1]]
        if len(predictions) == 0 or (len(predictions) == 1 and predictions[0]["text"] == ""):
            predictions.insert(0, {"text": "empty", "start_logit": 0.0, "end_logit": 0.0, "score": 0.0})
        scores = np.array([pred.pop("score") for pred in predictions])
        exp_scores = np.exp(scores - np.max(scores))
        probs = exp_scores / exp_scores.sum()
        for prob, pred in zip(probs, predictions):
            pred["probability"] = prob
        if not version_2_with_negative:
            all_predictions[example["id"]] = predictions[0]["text"]
        else:
            i = 0
            while predictions[i]["text"] == "":
                i += 1
            best_non_null_pred = predictions[i]
            score_diff = null_score - best_non_null_pred["start_logit"] - best_non_null_pred["end_logit"]
            scores_diff_json[example["id"]] = float(score_diff)
            if score_diff > null_score_diff_threshold:
                all_predictions[example["id"]] = ""
            else:
                all_predictions[example["id"]] = best_non_null_pred["text"]
        all_nbest_json[example["id"]] = [
            {k: (float(v) if isinstance(v, (np.float16, np.float32, np.float64)) else v) for k, v in pred.items()}
            for pred in predictions]
    files = {"predictions": json.dumps(all_predictions, indent=4) + "\n",
             "nbest": json.dumps(all_nbest_json, indent=4) + "\n"}
    if version_2_with_negative:
        files["null_odds"] = json.dumps(scores_diff_json, indent=4) + "\n"
    return files


# ----------------------------------------------------------------- fixture builders
def load_dev():
    with open(DEV, encoding="utf-8") as f:
        data = json.load(f)["data"]
    out = []
    for article in data:
        for para in article["paragraphs"]:
            for qa in para["qas"]:
                out.append({"id": qa["id"], "context": para["context"], "question": qa["question"],
                            "answers": [a["text"] for a in qa["answers"]],
                            "starts": [a["answer_start"] for a in qa["answers"]]})
    return out


TRICKY = [
    ("The Eiffel Tower", "eiffel tower"), ("an apple", "apple"), ("A", "a"), ("the", ""), ("", ""),
    ("thea", "the a"), ("Theatre", "atre"), ("a-b", "ab"), ("a_b", "a b"), ("the_end", "end"),
    ("Ünïcödé  Façade", "ünïcödé façade"), ("ΣΟΦΟΣ", "σοφος"), ("ΣΟΦΟΣ", "σοφοσ"), ("ὈΔΥΣΣΕΎΣ", "ὀδυσσεύς"),
    ("İstanbul", "istanbul"), ("İstanbul", "i̇stanbul"), ("STRASSE", "straße"), ("ǅ", "ǆ"),
    ("1,000", "1000"), ("$5.00", "500"), ("U.S.", "US"), ("«quoted»", "quoted"), ("“smart” quotes", "smart quotes"),
    ("em—dash", "em dash"), ("en–dash", "en dash"), ("tab\tand\nnewline", "tab and newline"),
    ("non\u00a0breaking", "non breaking"), ("ideographic\u3000space", "ideographic space"),
    ("zero\u200bwidth", "zerowidth"), ("a\u0301 accent", "á accent"), ("the\u0301", "the"),
    ("an\u00b2", "an"), ("the²", "the"), ("the½", "the"), ("a٣", "a"), ("the 1st", "1st"),
    ("Paris Paris", "Paris"), ("Paris", "Paris Paris"), ("red red blue", "red blue blue"),
    ("\u2028line sep", "line sep"), ("x\x1fy", "x y"), ("x\x85y", "x y"), ("ＡＢＣ", "ａｂｃ"),
    ("(a) the [b] an {c}", "b c"), ("'s", "s"), ("A.D. 1066", "AD 1066"), ("the the the", ""),
    ("Denver Broncos", "Denver Broncos"), ("Santa Clara, California", "Santa Clara"),
    ("", "something"), ("something", ""), ("!!!", ""), ("a an the", "the"),
]


def perturb(rng, text, context, start):
    """A realistic wrong or partially right prediction for a gold answer."""
    words = text.split()
    kind = rng.randrange(10)
    if kind == 0:
        return text
    if kind == 1:
        return text.upper()
    if kind == 2 and len(words) > 1:
        return " ".join(words[1:])
    if kind == 3 and len(words) > 1:
        return " ".join(words[:-1])
    if kind == 4:  # widen the span in the context by a few characters each side
        b = max(0, start - rng.randrange(0, 15))
        return context[b : start + len(text) + rng.randrange(0, 15)]
    if kind == 5:
        return "the " + text + "."
    if kind == 6:
        b = rng.randrange(0, max(1, len(context) - 30))
        return context[b : b + rng.randrange(1, 30)]
    if kind == 7:
        return ""
    if kind == 8:
        return text + " " + text
    return " ".join(rng.sample(words, len(words)))


def metric_pairs(dev, rng):
    pairs = list(TRICKY)
    for q in rng.sample(dev, 1400):
        k = rng.randrange(len(q["answers"]))
        pairs.append((perturb(rng, q["answers"][k], q["context"], q["starts"][k]), q["answers"][k]))
    # Raw unicode strings from contexts as both sides: letters, digits and symbols of many scripts.
    nonascii = [q for q in dev if any(ord(c) > 127 for c in q["context"])]
    for q in rng.sample(nonascii, 300):
        c = q["context"]
        b = rng.randrange(0, max(1, len(c) - 40))
        pairs.append((c[b : b + rng.randrange(1, 40)], c[b + rng.randrange(0, 5) : b + rng.randrange(5, 40)]))
    cases = []
    for p, g in pairs:
        cases.append({"prediction": p, "gold": g, "normalized": normalize_answer(p),
                      "em": float(exact_match_score(p, g)), "f1": float(f1_score(p, g)),
                      "exact_v2": float(compute_exact(g, p)), "f1_v2": float(compute_f1(g, p))})
    return cases


def scoring_sets(dev, rng):
    """A small SQuAD JSON (v2 layout: a third of the questions made unanswerable) and predictions."""
    picked = dev[:240]
    articles = collections.OrderedDict()
    refs = []
    for i, q in enumerate(picked):
        impossible = i % 3 == 2
        answers = [] if impossible else [{"text": t, "answer_start": s} for t, s in zip(q["answers"], q["starts"])]
        paras = articles.setdefault(q["context"], [])
        paras.append({"id": q["id"], "question": q["question"], "answers": answers, "is_impossible": impossible})
        refs.append({"id": q["id"], "answers": {"text": [a["text"] for a in answers]}, "q": q})
    squad = {"version": "v2.0", "data": [{"title": "dev_subset",
                                          "paragraphs": [{"context": c, "qas": qs} for c, qs in articles.items()]}]}
    preds = []
    for r in refs:
        q = r["q"]
        roll = rng.randrange(6)
        text = "" if roll == 0 else perturb(rng, q["answers"][0], q["context"], q["starts"][0])
        preds.append({"id": r["id"], "prediction_text": text, "no_answer_probability": 0.0})
    rng.shuffle(preds)  # best_* depend on the prediction order
    v1_refs = [r for r in refs if r["answers"]["text"]]
    v1_preds = {p["id"]: p["prediction_text"] for p in preds[: len(preds) - 20]}  # some missing
    return {"squad_json": squad,
            "predictions": [[p["id"], p["prediction_text"]] for p in preds],
            "v1_prediction_count": len(preds) - 20,
            "v1_expected": squad_v1_compute(v1_refs, v1_preds),
            "v2_expected": squad_v2_compute([{"id": r["id"], "answers": r["answers"]} for r in refs], preds)}


def dev_widened(dev):
    """Whole-dev totals for a deterministic prediction: the first answer widened in the context by 7
    code points on the left and 5 on the right (the C++ test rebuilds the same strings)."""
    refs, preds = [], {}
    for q in dev:
        s, t = q["starts"][0], q["answers"][0]
        preds[q["id"]] = q["context"][max(0, s - 7) : s + len(t) + 5]
        refs.append({"id": q["id"], "answers": {"text": q["answers"]}})
    v2_preds = [{"id": k, "prediction_text": v, "no_answer_probability": 0.0} for k, v in preds.items()]
    return {"v1": squad_v1_compute(refs, preds), "v2": squad_v2_compute(refs, v2_preds)}


def quantise(x, step_bits):
    """Round float32 values to `step_bits` mantissa bits (7 = bf16) to create exact ties."""
    x = np.asarray(x, dtype=np.float32)
    m, e = np.frexp(x)
    return np.ldexp(np.round(m * (1 << step_bits)) / (1 << step_bits), e).astype(np.float32)


def token_spans(context):
    """Word-piece-like spans: runs of letters/digits and single other characters, in code points."""
    return [(m.start(), m.end()) for m in re.finditer(r"\w+|[^\w\s]", context)]


def postprocess_case(dev, rng, nprng, version_2, quant, seq_len, n_examples, n_best=20, max_len=30,
                     force_empty=False):
    examples, features = [], []
    short = [q for q in dev if len(q["context"]) < 450]
    for q in rng.sample(short, n_examples):
        spans = token_spans(q["context"])
        q_len = rng.randrange(5, 16)
        room = seq_len - q_len - 3
        stride = rng.randrange(4, room // 2)
        examples.append({"id": q["id"], "context": q["context"]})
        start = 0
        while True:
            window = spans[start : start + room]
            offsets = [None] * (q_len + 2) + [list(s) for s in window] + [None] * (seq_len - q_len - 2 - len(window))
            features.append({"example_id": q["id"], "example_index": len(examples) - 1, "offset_mapping": offsets})
            if start + room >= len(spans):
                break
            start += room - stride
    n = len(features)
    start_logits = nprng.normal(0, 3, (n, seq_len)).astype(np.float32)
    end_logits = nprng.normal(0, 3, (n, seq_len)).astype(np.float32)
    if quant is not None:
        start_logits, end_logits = quantise(start_logits, quant), quantise(end_logits, quant)
    if version_2:  # make the null answer win for some examples (the null score is a minimum over features)
        for f, feat in enumerate(features):
            if feat["example_index"] % 3 == 1:
                start_logits[f, 0] += 9
                end_logits[f, 0] += 9
    if force_empty:  # example 0: every top logit outside the context, so no candidate survives
        for f, feat in enumerate(features):
            if feat["example_index"] == 0:
                outside = np.array([o is None for o in feat["offset_mapping"]])
                start_logits[f, outside] += 64
                end_logits[f, outside] += 64
    files = postprocess_qa_predictions(examples, features, start_logits, end_logits, version_2, n_best, max_len)
    for f, feat in enumerate(features):
        # Shortest float32 decimal strings: read back exactly with strtof.
        feat["start_logits"] = " ".join(np.format_float_positional(v, unique=True, trim="-") for v in start_logits[f])
        feat["end_logits"] = " ".join(np.format_float_positional(v, unique=True, trim="-") for v in end_logits[f])
        del feat["example_id"]
    # How often numpy's default argsort (this machine, this numpy) would order ties differently.
    differ = sum(
        np.argsort(row)[-1 : -n_best - 1 : -1].tolist() != top_indexes(row, n_best)
        for row in list(start_logits) + list(end_logits))
    return {"version_2": version_2, "n_best_size": n_best, "max_answer_length": max_len, "seq_len": seq_len,
            "examples": examples, "features": features, "expected": files,
            "rows_where_default_argsort_differs": int(differ)}


def float_repr_cases(nprng):
    values = [0.0, -0.0, 1.0, -1.0, 0.1, 1e-4, 9.999e-5, 1e-5, 1.5e-7, 123456789.0, 1e15, 1e16, 1.2345e16,
              -2.5e-300, 5e-324, 1.7976931348623157e308, 0.3333333333333333, 2.0 / 3.0, 100.0, 1e22, 12345.678]
    values += [float(np.float32(v)) for v in nprng.normal(0, 10, 200)]
    values += [float(v) for v in np.exp(nprng.uniform(-40, 40, 200))]
    return [[v, repr(v)] for v in values]


def numpy_expf_cases(nprng):
    """np.exp on float32 arrays (this machine's SIMD path), the softmax inputs' range and the edges."""
    x = np.concatenate([nprng.uniform(-30, 0, 1500), nprng.uniform(-110, 90, 500),
                        [0.0, -0.0, -87.3, -88.7, -100.0, -103.9, -103.97208404541015625, -104.0, 88.7, 88.72283935546875]])
    x = x.astype(np.float32)
    y = np.exp(x)
    f = lambda v: np.format_float_positional(v, unique=True, trim="-") if np.isfinite(v) else repr(float(v))
    return [[f(a), f(b)] for a, b in zip(x, y)]


def json_string_cases():
    texts = ["plain", 'quote " back \\ slash /', "tab\tnl\ncr\rbs\bff\f", "\x00\x01\x1f\x7f\x80",
             "café ümlaut", "中文字符", "emoji 😀 𝔘", "\u2028\u2029", "ÿĀ\uffff", "", "Ωmega"]
    return [[t, json.dumps(t)] for t in texts]


def dump(name, obj, out=OUT):
    path = os.path.join(out, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"{path}: {os.path.getsize(path)} bytes", file=sys.stderr)


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(20240611)
    nprng = np.random.default_rng(20240611)
    dev = load_dev()
    dump("metric_pairs.json", metric_pairs(dev, rng))
    sets = scoring_sets(dev, rng)
    sets["dev_widened"] = dev_widened(dev)
    dump("scoring_sets.json", sets)
    cases = [postprocess_case(dev, rng, nprng, False, None, 64, 8),
             postprocess_case(dev, rng, nprng, False, 7, 64, 8),
             postprocess_case(dev, rng, nprng, False, 2, 48, 8),
             postprocess_case(dev, rng, nprng, True, 7, 64, 8),
             postprocess_case(dev, rng, nprng, True, 3, 48, 8, force_empty=True),
             postprocess_case(dev, rng, nprng, False, 7, 40, 4, n_best=5, max_len=4, force_empty=True)]
    dump("postprocess_cases.json", cases)
    dump("format_cases.json", {"float_repr": float_repr_cases(nprng), "json_string": json_string_cases(),
                                 "numpy_expf": numpy_expf_cases(nprng)})


if __name__ == "__main__":
    main()
