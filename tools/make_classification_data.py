#!/usr/bin/env python3
"""Cuts the small real datasets of the text- and token-classification jobs bundled in data/:

  data/snli-mini/train.csv, validation.csv     SNLI 1.0 sentence pairs (CC BY-SA 4.0) as run_glue reads
                                               them: columns sentence1, sentence2, label (entailment /
                                               neutral / contradiction)
  data/wnut17-mini/train.json, validation.json WNUT-17 emerging entities (CC BY 4.0) as run_ner reads them:
                                               JSON lines {"id", "tokens", "ner_tags"} with IOB2 string tags

Plain Python (no third-party packages). Inputs are the original release files, in the folders given:
  --snli DIR    snli_1.0_dev.jsonl and snli_1.0_test.jsonl of SNLI 1.0 (https://nlp.stanford.edu/projects/snli/)
  --wnut DIR    wnut17train.conll and emerging.dev.conll of WNUT-17 (the shared task's data, "token<TAB>tag"
                lines, a blank line between sentences)
Pairs without a gold label ("-", no annotator majority) are left out, as the Hugging Face copy of SNLI
marks them -1 and GLUE-style training drops them; the text is kept byte for byte.

  python3 tools/make_classification_data.py --snli DIR --wnut DIR
"""
import argparse
import csv
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")

SNLI_TRAIN_PAIRS = 1200  # the first labelled pairs of the dev file
SNLI_VALIDATION_PAIRS = 400  # the first labelled pairs of the test file
WNUT_TRAIN_SENTENCES = 1000  # the first sentences of the training file
WNUT_VALIDATION_SENTENCES = 400  # the first sentences of the dev file


def snli_pairs(path, count):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            if r["gold_label"] == "-":
                continue
            rows.append([r["sentence1"], r["sentence2"], r["gold_label"]])
            if len(rows) == count:
                return rows
    raise SystemExit(f"{path}: only {len(rows)} labelled pairs, expected {count}")


def write_csv(path, rows):
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["sentence1", "sentence2", "label"])
        w.writerows(rows)


def conll_sentences(path, count):
    sentences, tokens, tags = [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip():
                if tokens:
                    sentences.append((tokens, tags))
                    tokens, tags = [], []
                    if len(sentences) == count:
                        return sentences
                continue
            token, tag = line.rsplit("\t", 1)
            tokens.append(token)
            tags.append(tag.strip())
    if tokens:
        sentences.append((tokens, tags))
    if len(sentences) < count:
        raise SystemExit(f"{path}: only {len(sentences)} sentences, expected {count}")
    return sentences[:count]


def write_json_lines(path, sentences):
    with open(path, "w", encoding="utf-8") as f:
        for i, (tokens, tags) in enumerate(sentences):
            f.write(json.dumps({"id": str(i), "tokens": tokens, "ner_tags": tags}, ensure_ascii=False) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--snli", required=True, help="folder with snli_1.0_dev.jsonl and snli_1.0_test.jsonl")
    ap.add_argument("--wnut", required=True, help="folder with wnut17train.conll and emerging.dev.conll")
    args = ap.parse_args()
    snli = os.path.join(DATA, "snli-mini")
    os.makedirs(snli, exist_ok=True)
    write_csv(os.path.join(snli, "train.csv"), snli_pairs(os.path.join(args.snli, "snli_1.0_dev.jsonl"), SNLI_TRAIN_PAIRS))
    write_csv(os.path.join(snli, "validation.csv"),
              snli_pairs(os.path.join(args.snli, "snli_1.0_test.jsonl"), SNLI_VALIDATION_PAIRS))
    wnut = os.path.join(DATA, "wnut17-mini")
    os.makedirs(wnut, exist_ok=True)
    write_json_lines(os.path.join(wnut, "train.json"),
                     conll_sentences(os.path.join(args.wnut, "wnut17train.conll"), WNUT_TRAIN_SENTENCES))
    write_json_lines(os.path.join(wnut, "validation.json"),
                     conll_sentences(os.path.join(args.wnut, "emerging.dev.conll"), WNUT_VALIDATION_SENTENCES))
    for d in (snli, wnut):
        for name in sorted(os.listdir(d)):
            if not name.endswith(".md"):
                print(os.path.join(os.path.basename(d), name), os.path.getsize(os.path.join(d, name)), "bytes")


if __name__ == "__main__":
    main()
