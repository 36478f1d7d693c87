#include "cpuft/text/wordpiece.h"

#include <algorithm>

#include "cpuft/text/utf8.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {

WordPiece::WordPiece(std::shared_ptr<const Vocab> vocab, WordPieceOptions options, const std::string& source)
    : vocab_(std::move(vocab)), options_(std::move(options)) {
  unk_id_ = vocab_->find(options_.unk_token);
  if (unk_id_ < 0) fail(source, ": unk token '", text_preview(options_.unk_token), "' is not in the vocabulary");
}

void WordPiece::tokenize(const std::u32string& chars, size_t begin, size_t end, std::vector<Piece>& out) const {
  if (static_cast<int64_t>(end - begin) > options_.max_input_chars_per_word) {
    out.push_back({unk_id_, begin, end});
    return;
  }
  // The word in UTF-8 with the byte offset of each char, so candidates are byte ranges.
  thread_local std::string word;
  thread_local std::vector<size_t> byte_at;
  thread_local std::string candidate;
  word.clear();
  byte_at.clear();
  for (size_t i = begin; i < end; ++i) {
    byte_at.push_back(word.size());
    append_utf8(chars[i], word);
  }
  byte_at.push_back(word.size());

  const size_t first_piece = out.size();
  const size_t n = end - begin;
  // Greedy longest match, but never trying a piece longer than the longest vocabulary token: the same
  // pieces, in time linear in the word (a hostile max_input_chars_per_word made it quadratic).
  const size_t longest = vocab_->max_token_chars();
  size_t start = 0;
  while (start < n) {
    int32_t found = -1;
    size_t stop = std::min(n, start + longest);
    for (; stop > start; --stop) {
      const std::string_view bytes(word.data() + byte_at[start], byte_at[stop] - byte_at[start]);
      if (start == 0) {
        found = vocab_->find(bytes);
      } else {
        candidate.assign(options_.continuing_subword_prefix);
        candidate.append(bytes);
        found = vocab_->find(candidate);
      }
      if (found >= 0) break;
    }
    if (found < 0) {  // some piece is unknown: the whole word is one [UNK]
      out.resize(first_piece);
      out.push_back({unk_id_, begin, end});
      return;
    }
    out.push_back({found, begin + start, begin + stop});
    start = stop;
  }
}

}  // namespace cpuft
