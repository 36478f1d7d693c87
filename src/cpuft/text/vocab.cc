#include "cpuft/text/vocab.h"

#include <algorithm>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/read_file.h"

namespace cpuft {

std::shared_ptr<const Vocab> Vocab::from_entries(std::vector<std::pair<std::string, int32_t>> entries,
                                                 const std::string& source) {
  if (entries.empty()) fail(source, ": empty vocabulary, expected at least one token");
  std::shared_ptr<Vocab> vocab(new Vocab());
  vocab->tokens_.reserve(entries.size());
  for (auto& [token, id] : entries) {
    if (id < 0) fail(source, ": token '", text_preview(token), "' has id ", id, ", expected a non-negative id");
    // Code points counted by their lead bytes (a token that is not valid UTF-8 never matches a word).
    const size_t chars = static_cast<size_t>(std::count_if(
        token.begin(), token.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
    vocab->max_token_chars_ = std::max(vocab->max_token_chars_, chars);
    vocab->tokens_.push_back(std::move(token));
    vocab->size_ = std::max<int64_t>(vocab->size_, int64_t{id} + 1);
  }
  // tokens_ is final now, so views of its strings stay valid.
  vocab->ids_.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) vocab->ids_[vocab->tokens_[i]] = entries[i].second;
  return vocab;
}

std::shared_ptr<const Vocab> Vocab::from_vocab_txt(const std::string& path) {
  const std::string text = read_file(path, kMaxTokenizerBytes);
  std::vector<std::pair<std::string, int32_t>> entries;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    size_t token_end = end;
    if (token_end > pos && text[token_end - 1] == '\r') --token_end;  // CRLF files
    entries.emplace_back(text.substr(pos, token_end - pos), static_cast<int32_t>(entries.size()));
    pos = end + 1;
  }
  return from_entries(std::move(entries), path);
}

}  // namespace cpuft
