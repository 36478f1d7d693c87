// BertPreTokenizer (huggingface/tokenizers pre_tokenizers/bert.rs): split on whitespace (removed),
// then make every punctuation char a word of its own.
#pragma once

#include <string>
#include <vector>

namespace cpuft {

struct WordRange {
  size_t begin = 0;  // [begin, end) in the normalised chars
  size_t end = 0;
};

std::vector<WordRange> split_words(const std::u32string& chars);

}  // namespace cpuft
