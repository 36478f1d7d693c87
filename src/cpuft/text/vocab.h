// A WordPiece vocabulary: token string <-> id. Immutable once built; lookups take string_views.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cpuft {

class Vocab {
 public:
  // `entries` are (token, id) pairs; a token listed twice keeps its last id (as a Python dict or Rust
  // HashMap built from the file would). Throws if empty or if an id is negative.
  static std::shared_ptr<const Vocab> from_entries(std::vector<std::pair<std::string, int32_t>> entries,
                                                   const std::string& source);
  // vocab.txt: one token per line, the 0-based line number is its id.
  static std::shared_ptr<const Vocab> from_vocab_txt(const std::string& path);

  // The id of `token`, or -1.
  int32_t find(std::string_view token) const {
    const auto it = ids_.find(token);
    return it == ids_.end() ? -1 : it->second;
  }
  // One past the largest id (the embedding rows a model needs).
  int64_t size() const { return size_; }
  // Code points of the longest token: no longer piece of a word can be in the vocabulary.
  size_t max_token_chars() const { return max_token_chars_; }

  Vocab(const Vocab&) = delete;
  Vocab& operator=(const Vocab&) = delete;

 private:
  Vocab() = default;
  std::vector<std::string> tokens_;  // owns the bytes the keys of ids_ view
  std::unordered_map<std::string_view, int32_t> ids_;
  int64_t size_ = 0;
  size_t max_token_chars_ = 0;
};

}  // namespace cpuft
