#include "cpuft/text/word_encoding.h"

#include "cpuft/util/error.h"

namespace cpuft {

WordEncoding encode_words(const Tokenizer& tokenizer, const std::vector<std::string>& words, size_t max_tokens) {
  WordEncoding out;
  for (size_t w = 0; w < words.size() && out.ids.size() <= max_tokens; ++w) {
    Tokenizer::Encoding e;
    try {
      e = tokenizer.encode_prefix(words[w], max_tokens - out.ids.size());
    } catch (const Error& err) {
      fail("word ", w, ": ", err.what());
    }
    out.ids.insert(out.ids.end(), e.ids.begin(), e.ids.end());
    out.word_ids.resize(out.ids.size(), static_cast<int32_t>(w));
  }
  if (out.ids.size() > max_tokens + 1) {
    out.ids.resize(max_tokens + 1);
    out.word_ids.resize(max_tokens + 1);
  }
  return out;
}

}  // namespace cpuft
