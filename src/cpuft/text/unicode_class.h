// Character classes of the BERT normalizer and pre-tokenizer (huggingface/tokenizers bert.rs), and
// Python's str.isspace, all derived from utf8proc's Unicode tables.
#pragma once

#include <string_view>

namespace cpuft {

// Rust char::is_whitespace (Unicode White_Space): categories Zs, Zl, Zp, plus U+0009-000D and U+0085.
bool is_unicode_whitespace(char32_t c);

// BertNormalizer "control": category Cc, Cf, Co or Cs, except \t \n \r. Unassigned chars (Cn) are
// kept: the fast tokenizer keeps U+0378 (its is_other() has no Cn, tests/text/tokenize_cases_test.cc).
bool is_bert_control(char32_t c);

// BertPreTokenizer punctuation: the 32 ASCII punctuation chars or categories Pc Pd Ps Pe Pi Pf Po.
bool is_bert_punctuation(char32_t c);

// The CJK ideograph blocks BertNormalizer surrounds with spaces (docs/parity.md, Tokenizer).
bool is_cjk_ideograph(char32_t c);

// Category Mn (non-spacing mark), removed when stripping accents.
bool is_nonspacing_mark(char32_t c);

// Python str.isspace: category Zs or bidirectional class WS, B or S.
bool is_python_space(char32_t c);

// `utf8` without leading Python whitespace (str.lstrip(), as run_qa applies to questions).
std::string_view lstrip_python_space(std::string_view utf8);

}  // namespace cpuft
