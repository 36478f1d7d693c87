#include "cpuft/text/tokenizer.h"

#include <algorithm>

#include "cpuft/text/pre_tokenizer.h"
#include "cpuft/text/utf8.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {

static int32_t required_id(const Vocab& vocab, const std::string& token, const char* role, const std::string& source) {
  const int32_t id = vocab.find(token);
  if (id < 0) fail(source, ": ", role, " token '", text_preview(token), "' is not in the vocabulary");
  return id;
}

Tokenizer::Tokenizer(std::shared_ptr<const Vocab> vocab, NormalizerOptions normalizer, WordPieceOptions wordpiece,
                     SpecialTokenNames names, std::vector<AddedToken> added, std::vector<std::string> source_files,
                     const std::string& source)
    : normalizer_(normalizer),
      model_(std::move(vocab), std::move(wordpiece), source),
      added_(std::move(added)),
      source_files_(std::move(source_files)) {
  const Vocab& v = model_.vocab();
  cls_id_ = required_id(v, names.cls, "cls", source);
  sep_id_ = required_id(v, names.sep, "sep", source);
  pad_id_ = required_id(v, names.pad, "pad", source);
  vocab_size_ = v.size();
  for (const AddedToken& t : added_) vocab_size_ = std::max<int64_t>(vocab_size_, int64_t{t.id} + 1);
  // Longest first, so the first match at a position is the longest (leftmost-longest matching).
  std::stable_sort(added_.begin(), added_.end(),
                   [](const AddedToken& a, const AddedToken& b) { return a.content.size() > b.content.size(); });
  for (const AddedToken& t : added_)
    for (char32_t c : t.content) added_has_ascii_space_ |= c == U' ' || c == U'\t' || c == U'\n' || c == U'\r';
}

const AddedToken* Tokenizer::match_added(const std::u32string& text, size_t at) const {
  for (const AddedToken& t : added_) {
    if (!t.content.empty() && text.compare(at, t.content.size(), t.content) == 0) return &t;
  }
  return nullptr;
}

void Tokenizer::encode_segment(const std::u32string& text, size_t begin, size_t end, Encoding& out) const {
  if (begin == end) return;
  const NormalizedText normalized = normalize(normalizer_, text, begin, end);
  std::vector<Piece> pieces;
  for (const WordRange& word : split_words(normalized.chars)) {
    pieces.clear();
    model_.tokenize(normalized.chars, word.begin, word.end, pieces);
    for (const Piece& p : pieces) {
      out.ids.push_back(p.id);
      out.offsets.push_back({normalized.origin[p.begin], normalized.origin[p.end - 1] + 1});
    }
  }
}

void Tokenizer::encode_piece(std::string_view utf8, size_t byte_base, int64_t cp_base, Encoding& out) const {
  const std::u32string text = decode_utf8(utf8, byte_base);
  const size_t first_new = out.ids.size();
  out.ids.reserve(out.ids.size() + text.size() / 4 + 4);
  out.offsets.reserve(out.offsets.size() + text.size() / 4 + 4);
  size_t segment = 0;
  size_t i = 0;
  while (i < text.size()) {
    const AddedToken* match = added_.empty() ? nullptr : match_added(text, i);
    if (match == nullptr) {
      ++i;
      continue;
    }
    encode_segment(text, segment, i, out);
    out.ids.push_back(match->id);
    out.offsets.push_back({static_cast<int64_t>(i), static_cast<int64_t>(i + match->content.size())});
    i += match->content.size();
    segment = i;
  }
  encode_segment(text, segment, text.size(), out);
  for (size_t k = first_new; k < out.offsets.size(); ++k) out.offsets[k].begin += cp_base, out.offsets[k].end += cp_base;
}

Tokenizer::Encoding Tokenizer::encode(std::string_view utf8) const {
  Encoding out;
  encode_piece(utf8, 0, 0, out);
  return out;
}

Tokenizer::Encoding Tokenizer::encode_prefix(std::string_view utf8, size_t max_tokens) const {
  constexpr size_t kPieceBytes = size_t{1} << 16;
  Encoding out;
  size_t pos = 0;
  int64_t cp_base = 0;
  while (pos < utf8.size() && out.ids.size() <= max_tokens) {
    size_t cut = utf8.size();
    if (!added_has_ascii_space_ && utf8.size() - pos > kPieceBytes) {
      // ASCII whitespace bytes never occur inside a multi-byte UTF-8 sequence.
      const size_t space = utf8.find_first_of(" \t\n\r", pos + kPieceBytes);
      if (space != std::string_view::npos) cut = space;
    }
    const std::string_view piece = utf8.substr(pos, cut - pos);
    encode_piece(piece, pos, cp_base, out);
    cp_base += static_cast<int64_t>(count_code_points(piece));
    pos = cut;
  }
  if (out.ids.size() > max_tokens + 1) {
    out.ids.resize(max_tokens + 1);
    out.offsets.resize(max_tokens + 1);
  }
  return out;
}

}  // namespace cpuft
