#include "cpuft/text/pre_tokenizer.h"

#include "cpuft/text/unicode_class.h"

namespace cpuft {

std::vector<WordRange> split_words(const std::u32string& chars) {
  std::vector<WordRange> words;
  size_t start = 0;
  auto close_word = [&](size_t end) {
    if (end > start) words.push_back({start, end});
  };
  for (size_t i = 0; i < chars.size(); ++i) {
    const char32_t c = chars[i];
    if (is_unicode_whitespace(c)) {
      close_word(i);
      start = i + 1;
    } else if (is_bert_punctuation(c)) {
      close_word(i);
      words.push_back({i, i + 1});
      start = i + 1;
    }
  }
  close_word(chars.size());
  return words;
}

}  // namespace cpuft
