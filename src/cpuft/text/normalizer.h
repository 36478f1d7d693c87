// BertNormalizer (huggingface/tokenizers normalizers/bert.rs) with the alignment the fast tokenizer
// keeps: every normalised char remembers the original char it came from (docs/parity.md, Tokenizer).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cpuft {

struct NormalizerOptions {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  std::optional<bool> strip_accents;  // unset: follows `lowercase`, as in tokenizers
  bool lowercase = true;
};

struct NormalizedText {
  std::u32string chars;
  std::vector<int64_t> origin;  // origin[i]: index in the original text of the char chars[i] came from
};

// Normalises original[begin, end); origins are indices into `original`.
NormalizedText normalize(const NormalizerOptions& options, const std::u32string& original, size_t begin, size_t end);

}  // namespace cpuft
