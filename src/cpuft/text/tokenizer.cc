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

Tokenizer::Encoding Tokenizer::encode(std::string_view utf8) const {
  const std::u32string text = decode_utf8(utf8);
  Encoding out;
  out.ids.reserve(text.size() / 4 + 4);
  out.offsets.reserve(text.size() / 4 + 4);
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
  return out;
}

}  // namespace cpuft
