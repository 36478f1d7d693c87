"""run_qa.py's reading of SQuAD and its training features, re-typed once for the tools that need them
(tools/make_text_reference.py, tools/hf_reference_qa.py, tools/int8_reference_qa.py,
tools/make_trainer_eval_fixture.py): the examples of a SQuAD JSON file, the fast tokenizer's windows
(prepare_train_features / prepare_validation_features) and the training labels. Needs only the
tokenizer it is given, so that a reference runner does not depend on the MiniLM package.
"""
import json


def load_squad(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)["data"]
    examples = []
    for article in data:
        for para in article["paragraphs"]:
            for qa in para["qas"]:
                examples.append({
                    "id": qa["id"],
                    "context": para["context"],
                    "question": qa["question"],
                    "answer_starts": [a["answer_start"] for a in qa["answers"]],
                    "answer_texts": [a["text"] for a in qa["answers"]],
                })
    return examples


def tokenize_batch(tok, questions, contexts, max_len, stride):
    return tok(
        [q.lstrip() for q in questions],
        contexts,
        truncation="only_second",
        max_length=max_len,
        stride=stride,
        return_overflowing_tokens=True,
        return_offsets_mapping=True,
        padding="max_length",
    )


def train_labels(enc, examples):
    """prepare_train_features of run_qa.py, returning (start, end) per feature."""
    labels = []
    for i, offsets in enumerate(enc["offset_mapping"]):
        input_ids = enc["input_ids"][i]
        cls_index = input_ids.index(101)
        seq_ids = enc.sequence_ids(i)
        ex = examples[enc["overflow_to_sample_mapping"][i]]
        if len(ex["answer_starts"]) == 0:
            labels.append((cls_index, cls_index))
            continue
        start_char = ex["answer_starts"][0]
        end_char = start_char + len(ex["answer_texts"][0])
        token_start_index = 0
        while seq_ids[token_start_index] != 1:
            token_start_index += 1
        token_end_index = len(input_ids) - 1
        while seq_ids[token_end_index] != 1:
            token_end_index -= 1
        if not (offsets[token_start_index][0] <= start_char and offsets[token_end_index][1] >= end_char):
            labels.append((cls_index, cls_index))
            continue
        while token_start_index < len(offsets) and offsets[token_start_index][0] <= start_char:
            token_start_index += 1
        while offsets[token_end_index][1] >= end_char:
            token_end_index -= 1
        labels.append((token_start_index - 1, token_end_index + 1))
    return labels
