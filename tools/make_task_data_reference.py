#!/usr/bin/env python3
"""Golden fixtures for the text- and token-classification data paths (tests/data/), from the libraries
run_glue.py and run_ner.py use: datasets' csv / json builders, the fast tokenizer, transformers' config.

The steps below are those of examples/pytorch/text-classification/run_glue.py (local --train_file /
--validation_file / --test_file, no --task_name) and examples/pytorch/token-classification/run_ner.py
(transformers 5.x), written out step by step with the same library calls: load_dataset("csv"|"json"),
the regression test on features["label"].dtype, unique("label") + sort, the column rules, label_to_id,
tokenizer(..., padding, max_length, truncation=True) (with is_split_into_words=True for NER), word_ids()
alignment with -100 and --label_all_tokens' b_to_i_label. The tokenizer is the bundled uncased one of
tests/fixtures/text/.

Writes tests/fixtures/data/:
  text_classification_cases.json   per case: the input files, the chosen columns, is_regression, the
                                   sorted label list, label2id / id2label as config.json holds them,
                                   and every split's features at several (max_seq_length, padding)
  token_classification_cases.json  per case: the input files, the label list, b_to_i_label, and every
                                   split's features (input_ids, labels, word_ids) with and without
                                   --label_all_tokens
  csv_label_types.json             what pandas makes of a label column's cells (int, float, bool, NA, text)
  table_rejections.json            inputs cpuft refuses, with what run_glue / run_ner do on them
  bundled_task_data.json           data/snli-mini and data/wnut17-mini through the same steps: label lists,
                                   feature counts and an FNV-1a hash of every feature (128 tokens, no padding)

Run offline:  HF_HUB_OFFLINE=1 /work/venvs/t215/bin/python tools/make_task_data_reference.py
"""
import json
import os
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
warnings.filterwarnings("ignore")

import datasets  # noqa: E402
from datasets import ClassLabel, load_dataset  # noqa: E402
from transformers import AutoConfig, AutoTokenizer  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from glue_columns import glue_columns  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TOKENIZER_DIR = ROOT / "tests" / "fixtures" / "text"
CONFIG_DIR = ROOT / "tests" / "fixtures" / "model" / "bert_hd8"  # any BERT config.json: label2id/id2label only
OUT = ROOT / "tests" / "fixtures" / "data"

datasets.disable_progress_bars()
datasets.utils.logging.set_verbosity_error()


def load(files, tmp):
    """load_dataset as run_glue / run_ner call it for local files: the builder named by the extension."""
    ext = next(iter(files.values()))["name"].rsplit(".", 1)[-1]
    paths = {}
    for split, f in files.items():
        p = Path(tmp) / f["name"]
        p.write_bytes(f["text"].encode("utf-8"))
        paths[split] = str(p)
    return load_dataset("csv" if ext == "csv" else "json", data_files=paths, cache_dir=str(Path(tmp) / "cache"))


def config_labels(num_labels, label_to_id):
    """label2id / id2label as run_glue / run_ner set them on the config and save_pretrained writes them."""
    config = AutoConfig.from_pretrained(CONFIG_DIR, num_labels=num_labels)
    if label_to_id is not None:
        config.label2id = label_to_id
        config.id2label = {i: label for label, i in config.label2id.items()}
    d = json.loads(config.to_json_string())
    return d.get("label2id"), d.get("id2label")


def glue_case(name, files, settings, tokenizer):
    """run_glue.main() from load_dataset to raw_datasets.map(preprocess_function) for local files."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = load(files, tmp)
        is_regression, label_list, key1, key2 = glue_columns(raw["train"])
        num_labels = 1 if is_regression else len(label_list)
        label_to_id = None if is_regression else {v: i for i, v in enumerate(label_list)}
        label2id, id2label = config_labels(num_labels, label_to_id)
        case = {"name": name, "files": files, "sentence1_key": key1, "sentence2_key": key2,
                "is_regression": is_regression, "num_labels": num_labels,
                "label_list": None if label_list is None else [str(x) for x in label_list],
                "config_label2id": label2id, "config_id2label": id2label, "features": []}
        for max_seq_length, pad in settings:
            padding = "max_length" if pad else False
            max_len = min(max_seq_length, tokenizer.model_max_length)

            def preprocess_function(examples):
                args = (examples[key1],) if key2 is None else (examples[key1], examples[key2])
                result = tokenizer(*args, padding=padding, max_length=max_len, truncation=True)
                if label_to_id is not None and "label" in examples:
                    result["label"] = [(label_to_id[l] if l != -1 else -1) for l in examples["label"]]
                return result

            splits = {}
            for split in raw:
                if split == "test":
                    # cpuft reads test labels not at all (predict needs none); tokenise the texts only.
                    ds = raw[split].map(lambda ex: tokenizer(*((ex[key1],) if key2 is None else (ex[key1], ex[key2])),
                                                             padding=padding, max_length=max_len, truncation=True),
                                        batched=True)
                else:
                    ds = raw[split].map(preprocess_function, batched=True)
                rows = []
                for r in ds:
                    row = {"input_ids": r["input_ids"], "attention_mask": r["attention_mask"],
                           "token_type_ids": r["token_type_ids"]}
                    if split != "test":
                        row["label"] = r["label"] if is_regression else int(r["label"])
                    rows.append(row)
                splits[split] = rows
            case["features"].append({"max_seq_length": max_seq_length, "pad_to_max_length": pad, "splits": splits})
    return case


def ner_case(name, files, settings, tokenizer, task_name="ner"):
    """run_ner.main() from load_dataset to the tokenize_and_align_labels maps, for local JSON files."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = load(files, tmp)
        column_names = raw["train"].column_names
        features = raw["train"].features
        text_column_name = "tokens" if "tokens" in column_names else column_names[0]
        label_column_name = f"{task_name}_tags" if f"{task_name}_tags" in column_names else column_names[1]

        def get_label_list(labels):
            unique_labels = set()
            for label in labels:
                unique_labels = unique_labels | set(label)
            label_list = list(unique_labels)
            label_list.sort()
            return label_list

        assert not isinstance(features[label_column_name].feature, ClassLabel)  # JSON files carry no ClassLabel
        label_list = get_label_list(raw["train"][label_column_name])
        label_to_id = {l: i for i, l in enumerate(label_list)}
        num_labels = len(label_list)
        label2id, id2label = config_labels(num_labels, None)
        b_to_i_label = []
        for idx, label in enumerate(label_list):
            if label.startswith("B-") and label.replace("B-", "I-") in label_list:
                b_to_i_label.append(label_list.index(label.replace("B-", "I-")))
            else:
                b_to_i_label.append(idx)
        label2id = {l: i for i, l in enumerate(label_list)}
        id2label = {str(i): l for i, l in enumerate(label_list)}
        case = {"name": name, "files": files, "text_column": text_column_name, "label_column": label_column_name,
                "label_list": label_list, "b_to_i_label": b_to_i_label, "config_label2id": label2id,
                "config_id2label": id2label, "features": []}
        for max_seq_length, pad, label_all_tokens in settings:
            padding = "max_length" if pad else False

            def tokenize_and_align_labels(examples):
                tokenized_inputs = tokenizer(examples[text_column_name], padding=padding, truncation=True,
                                             max_length=max_seq_length, is_split_into_words=True)
                labels, all_word_ids = [], []
                for i, label in enumerate(examples[label_column_name]):
                    word_ids = tokenized_inputs.word_ids(batch_index=i)
                    previous_word_idx = None
                    label_ids = []
                    for word_idx in word_ids:
                        if word_idx is None:
                            label_ids.append(-100)
                        elif word_idx != previous_word_idx:
                            label_ids.append(label_to_id[label[word_idx]])
                        else:
                            if label_all_tokens:
                                label_ids.append(b_to_i_label[label_to_id[label[word_idx]]])
                            else:
                                label_ids.append(-100)
                        previous_word_idx = word_idx
                    labels.append(label_ids)
                    all_word_ids.append([-1 if w is None else w for w in word_ids])
                tokenized_inputs["labels"] = labels
                tokenized_inputs["word_ids"] = all_word_ids
                return tokenized_inputs

            splits = {}
            for split in raw:
                ds = raw[split].map(tokenize_and_align_labels, batched=True)
                splits[split] = [{"input_ids": r["input_ids"], "attention_mask": r["attention_mask"],
                                  "token_type_ids": r["token_type_ids"], "labels": r["labels"],
                                  "word_ids": r["word_ids"]} for r in ds]
            case["features"].append({"max_seq_length": max_seq_length, "pad_to_max_length": pad,
                                     "label_all_tokens": label_all_tokens, "splits": splits})
    return case


def outcome(fn):
    """What the Python pipeline does with a bad input: 'ok: ...' or the exception it stops with."""
    try:
        return "ok: " + str(fn())[:200]
    except Exception as e:  # noqa: BLE001 - the point is to record whatever it raises
        while e.__cause__ is not None or (e.__context__ is not None and "DatasetGenerationError" in type(e).__name__):
            e = e.__cause__ or e.__context__
        return f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"


def f(name, text):
    return {"name": name, "text": text}


def csv_rows(header, rows):
    import csv
    import io
    s = io.StringIO()
    w = csv.writer(s, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return s.getvalue()


def glue_cases(tokenizer):
    settings = [(128, True), (128, False), (12, False), (13, True), (9, False)]
    long_a = ("The quick brown fox jumps over the lazy dog while an unbelievably long subordinate clause keeps "
              "going, naming Zürich, São Paulo and 東京 along the way.")
    long_b = "A short reply."
    cases = []
    cases.append(glue_case("csv_pair_string_labels", {
        "train": f("train.csv", csv_rows(["sentence1", "sentence2", "label"], [
            ["A man is playing a guitar.", "A person plays music.", "entailment"],
            ["Two dogs run, \"fast\", through snow.", "Cats sleep.", "contradiction"],
            [long_a, long_b, "neutral"],
            [long_b, long_a, "entailment"],
            [long_a, long_a, "neutral"],
            ["Multi-line\ncell with a comma, here", "naïve café résumé", "contradiction"],
        ])),
        "validation": f("dev.csv", csv_rows(["sentence1", "sentence2", "label"], [
            ["Is it raining?", "It rains.", "neutral"], [long_a, "Yes.", "entailment"]])),
        "test": f("test.csv", csv_rows(["sentence1", "sentence2", "label"], [
            ["Unlabelled pair one.", "And its partner.", "-1"], ["Nothing here", "at all", "-1"]])),
    }, settings, tokenizer))
    cases.append(glue_case("csv_int_labels_sorted_numerically", {
        "train": f("train.csv", "text,label\nfirst sentence,10\nsecond one,2\nthird,3\nfourth,2\n"),
        "validation": f("dev.csv", "text,label\nvalid one,3\nvalid two,10\n"),
    }, settings, tokenizer))
    cases.append(glue_case("csv_first_two_non_label_columns", {
        "train": f("train.csv", "label,premise,hypothesis,idx\nyes,He came.,He arrived.,0\nno,She left.,She stayed.,1\n"),
        "validation": f("dev.csv", "label,premise,hypothesis,idx\nno,It is red.,It is blue.,0\n"),
    }, settings, tokenizer))
    cases.append(glue_case("csv_regression", {
        "train": f("train.csv", "sentence1,sentence2,label\na cat,a kitten,3.8\na car,a tree,0.25\nsame,same,5\n"),
        "validation": f("dev.csv", "sentence1,sentence2,label\nred,crimson,4\n"),
    }, settings, tokenizer))
    cases.append(glue_case("csv_crlf_bom_blank_lines_spaced_numbers", {
        "train": f("train.csv", "\ufeffsentence,label\r\nfirst , 1\r\n\r\nsecond,2 \r\n\"quoted \"\"word\"\"\",1\r\n"),
        "validation": f("dev.csv", "sentence,label\nthird,2\n"),
    }, settings, tokenizer))
    cases.append(glue_case("csv_bool_labels", {
        "train": f("train.csv", "sentence,label\ngood,True\nbad,false\nfine,TRUE\n"),
        "validation": f("dev.csv", "sentence,label\nokay,False\n"),
    }, settings, tokenizer))
    cases.append(glue_case("csv_string_labels_that_look_numeric", {
        "train": f("train.csv", "sentence,label\none,1\ntwo,pos\nthree,10\nfour,2\n"),
        "validation": f("dev.csv", "sentence,label\nfive,10\n"),
    }, settings, tokenizer))
    cases.append(glue_case("jsonl_key_order_premise_hypothesis", {
        "train": f("train.json", "".join(json.dumps(r) + "\n" for r in [
            {"premise": "A woman reads.", "hypothesis": "Someone reads.", "label": "entailment", "id": 1},
            {"premise": "A boy sings.", "hypothesis": "A girl sleeps.", "label": "contradiction", "id": 2},
        ])),
        "validation": f("dev.json", json.dumps({"premise": "Rain.", "hypothesis": "Sun.", "label": "contradiction",
                                                "id": 3}) + "\n"),
    }, settings, tokenizer))
    cases.append(glue_case("jsonl_sentence_keys_anywhere", {
        "train": f("train.json", "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [
            {"idx": 0, "sentence2": "Second part.", "label": 1, "sentence1": "First part, with ünïcödé."},
            {"idx": 1, "sentence2": "B", "label": 0, "sentence1": "A"},
            {"idx": 2, "sentence2": long_b, "label": 1, "sentence1": long_a},
        ])),
        "validation": f("dev.json", json.dumps({"idx": 9, "sentence2": "x", "label": 0, "sentence1": "y"}) + "\n"),
        "test": f("test.json", json.dumps({"idx": 9, "sentence2": "unlabelled", "label": -1, "sentence1": "pair"}) + "\n"),
    }, settings, tokenizer))
    cases.append(glue_case("jsonl_regression_int_and_float", {
        "train": f("train.json", '{"text": "low", "label": 1}\n{"text": "high", "label": 4.5}\n\n'),
        "validation": f("dev.json", '{"text": "mid", "label": 3}\n'),
    }, settings, tokenizer))
    cases.append(glue_case("jsonl_single_text_column", {
        "train": f("train.json", '{"text": "I loved it", "label": "pos"}\n{"text": "I hated it", "label": "neg"}\n'
                                 '{"text": "Zoë’s film — “great”!", "label": "pos"}\n'),
        "validation": f("dev.json", '{"text": "meh", "label": "neg"}\n'),
    }, settings, tokenizer))
    return cases


def ner_cases(tokenizer):
    settings = [(64, False, False), (64, False, True), (10, True, False), (10, False, True), (128, True, True)]
    train = [
        {"id": "0", "tokens": ["Hugging", "Face", "is", "based", "in", "NYC", "."],
         "ner_tags": ["B-ORG", "I-ORG", "O", "O", "O", "B-LOC", "O"]},
        {"id": "1", "tokens": ["unbelievably", "Zürich-based", "U.S.", "company", "東京"],
         "ner_tags": ["O", "B-MISC", "B-LOC", "O", "B-LOC"]},
        {"id": "2", "tokens": ["Empty", "", "and", " ", "spaced", "words", "x" * 120],
         "ner_tags": ["O", "O", "O", "B-PER", "I-PER", "O", "B-PER"]},
        {"id": "3", "tokens": [], "ner_tags": []},
        {"id": "4", "tokens": ["Dr.", "Jane", "Doe-Smith", "met", "Bob", "in", "São", "Paulo", "yesterday", "evening",
                               "with", "friends"],
         "ner_tags": ["O", "B-PER", "I-PER", "O", "B-PER", "O", "B-LOC", "I-LOC", "O", "O", "O", "O"]},
        {"id": "5", "tokens": ["B-only", "tags"], "ner_tags": ["B-EVENT", "O"]},
    ]
    dev = [{"id": "d0", "tokens": ["Paris", "Hilton", "visited", "Paris"], "ner_tags": ["B-PER", "I-PER", "O", "B-LOC"]}]
    test = [{"id": "t0", "tokens": ["Nobody", "unbelievably", "Zürich"], "ner_tags": ["O", "O", "B-LOC"]}]
    lines = lambda rows: "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)  # noqa: E731
    cases = [ner_case("jsonl_iob2_string_tags", {"train": f("train.json", lines(train)),
                                                 "validation": f("dev.json", lines(dev)),
                                                 "test": f("test.json", lines(test))}, settings, tokenizer)]
    other = [{"words": ["Some", "words"], "tags": ["I-X", "E-X"]}, {"words": ["more", "text"], "tags": ["S-Y", "O"]}]
    cases.append(ner_case("jsonl_other_column_names_first_two", {"train": f("train.json", lines(other))},
                          settings[:2], tokenizer))
    return cases


def rejections(tokenizer):
    """Inputs cpuft refuses with a one-line error, and what the Python pipeline does with them."""
    out = []

    def glue(name, files):
        def go():
            case = glue_case(name, files, [(16, False)], tokenizer)
            return {k: case[k] for k in ("is_regression", "label_list")}
        out.append({"name": name, "files": files, "job": "text-classification", "python": outcome(go)})

    def ner(name, files):
        out.append({"name": name, "files": files, "job": "token-classification",
                    "python": outcome(lambda: ner_case(name, files, [(16, False, False)], tokenizer)["label_list"])})

    glue("validation_label_not_in_training", {"train": f("train.csv", "sentence,label\na,pos\nb,neg\n"),
                                               "validation": f("dev.csv", "sentence,label\nc,maybe\n")})
    glue("validation_int_label_not_in_training", {"train": f("train.csv", "sentence,label\na,1\nb,2\n"),
                                                   "validation": f("dev.csv", "sentence,label\nc,3\n")})
    glue("missing_label_column", {"train": f("train.csv", "sentence,target\na,1\n"),
                                  "validation": f("dev.csv", "sentence,target\nb,1\n")})
    glue("empty_label_cell_makes_pandas_float", {"train": f("train.csv", "sentence,label\na,1\nb,\n"),
                                                 "validation": f("dev.csv", "sentence,label\nc,1\n")})
    glue("empty_text_cell", {"train": f("train.csv", "sentence,label\n,1\nb,2\n"),
                             "validation": f("dev.csv", "sentence,label\nc,1\n")})
    glue("ragged_row_too_many_fields", {"train": f("train.csv", "sentence,label\na,1\nb,2,3\n"),
                                        "validation": f("dev.csv", "sentence,label\nc,1\n")})
    glue("ragged_row_too_few_fields", {"train": f("train.csv", "sentence,label\na,1\nb\n"),
                                       "validation": f("dev.csv", "sentence,label\nc,1\n")})
    glue("unterminated_quote", {"train": f("train.csv", "sentence,label\n\"a,1\nb,2\n"),
                                "validation": f("dev.csv", "sentence,label\nc,1\n")})
    glue("jsonl_mixed_label_types", {"train": f("train.json", '{"text": "a", "label": 1}\n{"text": "b", "label": "x"}\n'),
                                     "validation": f("dev.json", '{"text": "c", "label": 1}\n')})
    glue("jsonl_null_label", {"train": f("train.json", '{"text": "a", "label": "x"}\n{"text": "b", "label": null}\n'),
                              "validation": f("dev.json", '{"text": "c", "label": "x"}\n')})
    glue("jsonl_missing_text_key", {"train": f("train.json", '{"text": "a", "label": "x"}\n{"label": "y"}\n'),
                                    "validation": f("dev.json", '{"text": "c", "label": "x"}\n')})
    glue("jsonl_not_an_object", {"train": f("train.json", '{"text": "a", "label": "x"}\n[1, 2]\n'),
                                 "validation": f("dev.json", '{"text": "c", "label": "x"}\n')})
    glue("minus_one_label_in_training", {"train": f("train.csv", "sentence,label\na,-1\nb,1\n"),
                                         "validation": f("dev.csv", "sentence,label\nc,1\n")})
    ner("validation_tag_not_in_training", {"train": f("train.json", '{"tokens": ["a"], "ner_tags": ["O"]}\n'),
                                           "validation": f("dev.json", '{"tokens": ["b"], "ner_tags": ["B-PER"]}\n')})
    ner("tags_shorter_than_tokens", {"train": f("train.json", '{"tokens": ["a", "b"], "ner_tags": ["O"]}\n')})
    ner("int_tags", {"train": f("train.json", '{"tokens": ["a", "b"], "ner_tags": [0, 3]}\n')})
    ner("tokens_not_strings", {"train": f("train.json", '{"tokens": ["a", 7], "ner_tags": ["O", "O"]}\n')})
    return out


def csv_label_types():
    """pandas' type of a label column read by datasets' csv builder (two rows: a probe cell, then another),
    and the values it holds: int64 / uint64 / float64 / bool / object (strings)."""
    import io

    import pandas as pd
    probes = ["1", " 2", "3 ", "+4", "-5", "007", "1e3", "1.", "  .5", "-0.0", "inf", "-Infinity", "INF", "1_000",
              "0x10", "True", "true", "TRUE", "False", "FALSE", "yes", "1.5e-3", "9223372036854775807",
              "9223372036854775808", "1e400", "\u0661", "NA", "null", "None", "nan", "n/a", "#N/A"]
    out = []
    for probe in probes:
        for other in ["1", "1.5", "x", "True"]:
            df = pd.read_csv(io.StringIO('a,label\nq,"%s"\nr,%s\n' % (probe, other)))
            col = df["label"]
            out.append({"cells": [probe, other], "dtype": str(col.dtype),
                        "values": [None if (isinstance(v, float) and v != v) else
                                   (v if isinstance(v, (str, bool)) else repr(v)) for v in col.tolist()]})
    return out


def fnv1a(rows, fields):
    """FNV-1a (64-bit) over the int32 values of every field of every row, in order (the hash of
    tools/make_text_reference.py); tests/data computes it over cpuft's features of the same files."""
    h, prime, mask = 0xCBF29CE484222325, 0x100000001B3, (1 << 64) - 1
    for r in rows:
        for field in fields:
            values = r[field] if isinstance(r[field], list) else [r[field]]
            for v in values:
                h = ((h ^ (v & 0xFFFFFFFF)) * prime) & mask
    return "%016x" % h


def bundled_data(tokenizer):
    """The bundled real datasets (data/snli-mini, data/wnut17-mini) through the same pipelines: label
    lists, feature counts and a hash of every feature field at max_seq_length 128 without padding."""
    def files(folder, names):
        return {split: f(name, (ROOT / "data" / folder / name).read_text(encoding="utf-8"))
                for split, name in names.items()}

    snli = glue_case("snli-mini", files("snli-mini", {"train": "train.csv", "validation": "validation.csv"}),
                     [(128, False)], tokenizer)
    wnut = ner_case("wnut17-mini", files("wnut17-mini", {"train": "train.json", "validation": "validation.json"}),
                    [(128, False, False)], tokenizer)
    out = []
    for case, fields in ((snli, ["input_ids", "token_type_ids", "attention_mask", "label"]),
                         (wnut, ["input_ids", "attention_mask", "labels"])):
        splits = case["features"][0]["splits"]
        out.append({"name": case["name"], "label_list": case["label_list"],
                    "splits": {k: {"count": len(v), "hash": fnv1a(v, fields)} for k, v in splits.items()}})
    return out


def main():
    tokenizer = AutoTokenizer.from_pretrained(TOKENIZER_DIR)
    assert tokenizer.is_fast
    OUT.mkdir(parents=True, exist_ok=True)
    meta = {"transformers": __import__("transformers").__version__, "datasets": datasets.__version__,
            "tokenizers": __import__("tokenizers").__version__, "pandas": __import__("pandas").__version__,
            "pyarrow": __import__("pyarrow").__version__}
    for name, cases in (("text_classification_cases.json", glue_cases(tokenizer)),
                        ("csv_label_types.json", csv_label_types()),
                        ("token_classification_cases.json", ner_cases(tokenizer)),
                        ("table_rejections.json", rejections(tokenizer)),
                        ("bundled_task_data.json", bundled_data(tokenizer))):
        (OUT / name).write_text(json.dumps({"versions": meta, "cases": cases}, ensure_ascii=False, separators=(",", ":")) + "\n")
        print(name, len(cases), "cases")
    for r in json.loads((OUT / "table_rejections.json").read_text())["cases"]:
        print(f"  {r['name']}: {r['python']}")


if __name__ == "__main__":
    try:
        main()
    except Exception:
        traceback.print_exc()
        raise SystemExit(1)
