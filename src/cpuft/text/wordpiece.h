// WordPiece (huggingface/tokenizers models/wordpiece): greedy longest-match-first sub-words, "##"
// continuation prefix, whole word -> [UNK] when too long or when some piece is not in the vocabulary.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cpuft/text/vocab.h"

namespace cpuft {

struct WordPieceOptions {
  std::string unk_token = "[UNK]";
  std::string continuing_subword_prefix = "##";
  int64_t max_input_chars_per_word = 100;
};

struct Piece {
  int32_t id = 0;
  size_t begin = 0;  // [begin, end) in the chars given to tokenize()
  size_t end = 0;
};

class WordPiece {
 public:
  // Throws if the unk token is not in the vocabulary (`source` names the file).
  WordPiece(std::shared_ptr<const Vocab> vocab, WordPieceOptions options, const std::string& source);

  // Appends the pieces of the word chars[begin, end) to `out`.
  void tokenize(const std::u32string& chars, size_t begin, size_t end, std::vector<Piece>& out) const;

  const Vocab& vocab() const { return *vocab_; }
  int32_t unk_id() const { return unk_id_; }

 private:
  std::shared_ptr<const Vocab> vocab_;
  WordPieceOptions options_;
  int32_t unk_id_ = -1;
};

}  // namespace cpuft
