// The BERT WordPiece tokenizer, token for token and offset for offset the Hugging Face fast tokenizer
// (BertTokenizerFast): added/special tokens, BertNormalizer, BertPreTokenizer, WordPiece
// (docs/parity.md, Tokenizer). Special tokens of the pair template are added by the feature builder.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cpuft/text/normalizer.h"
#include "cpuft/text/wordpiece.h"

namespace cpuft {

// A code-point span [begin, end) into the encoded string.
struct TokenOffset {
  int64_t begin = 0;
  int64_t end = 0;
};

// A token matched verbatim in the raw text before normalisation (Hugging Face "added tokens" with
// normalized=false, e.g. a literal "[SEP]").
struct AddedToken {
  std::u32string content;
  int32_t id = 0;
};

struct SpecialTokenNames {
  std::string cls = "[CLS]";
  std::string sep = "[SEP]";
  std::string pad = "[PAD]";
  std::string unk = "[UNK]";
  std::string mask = "[MASK]";
};

class Tokenizer {
 public:
  struct Encoding {
    std::vector<int32_t> ids;
    std::vector<TokenOffset> offsets;  // code points of the input string
  };

  // Loads <model_dir>/tokenizer.json when present, else <model_dir>/vocab.txt (with do_lower_case,
  // strip_accents, tokenize_chinese_chars and special token names from tokenizer_config.json if
  // present). tokenizer_config.json flags override tokenizer.json ones, as BertTokenizerFast does.
  // Anything but BertNormalizer + BertPreTokenizer + WordPiece throws "not supported".
  static Tokenizer load(const std::string& model_dir);

  // Builds a tokenizer from its parts; `source` names the file for error messages.
  Tokenizer(std::shared_ptr<const Vocab> vocab, NormalizerOptions normalizer, WordPieceOptions wordpiece,
            SpecialTokenNames names, std::vector<AddedToken> added, std::vector<std::string> source_files,
            const std::string& source);

  // Tokens of `utf8` without special tokens. Throws cpuft::Error on malformed UTF-8.
  Encoding encode(std::string_view utf8) const;

  // The first tokens of encode(utf8), stopping once there are more than max_tokens (the result then
  // holds max_tokens + 1): for text that must fit a window, so that a huge input (a 50 MB question)
  // costs memory in proportion to what is kept. The text is read in pieces cut at ASCII whitespace,
  // which no word, added token or normalisation step spans, so the tokens are those of encode().
  Encoding encode_prefix(std::string_view utf8, size_t max_tokens) const;

  int32_t cls_id() const { return cls_id_; }
  int32_t sep_id() const { return sep_id_; }
  int32_t pad_id() const { return pad_id_; }
  int32_t unk_id() const { return model_.unk_id(); }
  int64_t vocab_size() const { return vocab_size_; }
  const NormalizerOptions& normalizer_options() const { return normalizer_; }

  // The files to copy into an output directory so that transformers loads this tokenizer back.
  const std::vector<std::string>& source_files() const { return source_files_; }

 private:
  void encode_segment(const std::u32string& text, size_t begin, size_t end, Encoding& out) const;
  // Appends the tokens of utf8, a piece of a longer text starting at byte byte_base and code point
  // cp_base of it (offsets and errors are counted in the whole text).
  void encode_piece(std::string_view utf8, size_t byte_base, int64_t cp_base, Encoding& out) const;
  // The longest added token starting at text[at], or nullptr.
  const AddedToken* match_added(const std::u32string& text, size_t at) const;

  NormalizerOptions normalizer_;
  WordPiece model_;
  std::vector<AddedToken> added_;
  bool added_has_ascii_space_ = false;  // then a text cannot be cut at whitespace (encode_prefix)
  std::vector<std::string> source_files_;
  int32_t cls_id_ = -1;
  int32_t sep_id_ = -1;
  int32_t pad_id_ = -1;
  int64_t vocab_size_ = 0;
};

}  // namespace cpuft
