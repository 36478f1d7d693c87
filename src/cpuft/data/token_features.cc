#include "cpuft/data/token_features.h"

#include "cpuft/text/word_encoding.h"
#include "cpuft/util/error.h"
#include "cpuft/util/memory.h"

namespace cpuft {

std::vector<TokenFeature> build_token_features(const std::vector<TaggedSentence>& sentences, const TagSet& tags,
                                               const Tokenizer& tokenizer, const TokenFeatureOptions& options) {
  if (options.max_seq_length < 2)
    fail("max_seq_length ", options.max_seq_length, " cannot hold [CLS] and [SEP], expected at least 2");
  const auto max_len = static_cast<size_t>(options.max_seq_length);
  const size_t budget = max_len - 2;
  check_fits_in_memory(static_cast<uint64_t>(sentences.size()) * (max_len * 14 + sizeof(TokenFeature)),
                       str_cat(sentences.size(), " features of up to ", max_len, " tokens"));
  std::vector<TokenFeature> out;
  out.reserve(sentences.size());
  for (const TaggedSentence& s : sentences) {
    WordEncoding e;
    try {
      e = encode_words(tokenizer, s.words, budget);
    } catch (const Error& err) {
      fail("line ", s.line, ": ", err.what());
    }
    if (e.ids.size() > budget) e.ids.resize(budget), e.word_ids.resize(budget);
    TokenFeature f;
    const size_t length = options.pad_to_max_length ? max_len : e.ids.size() + 2;
    f.input_ids.reserve(length);
    f.input_ids.push_back(tokenizer.cls_id());
    f.input_ids.insert(f.input_ids.end(), e.ids.begin(), e.ids.end());
    f.input_ids.push_back(tokenizer.sep_id());
    f.word_ids.push_back(-1);
    f.word_ids.insert(f.word_ids.end(), e.word_ids.begin(), e.word_ids.end());
    f.word_ids.push_back(-1);
    f.attention_mask.assign(f.input_ids.size(), 1);
    f.input_ids.resize(length, tokenizer.pad_id());
    f.word_ids.resize(length, -1);
    f.attention_mask.resize(length, 0);
    f.token_type_ids.assign(length, 0);
    f.labels.assign(length, kIgnoreLabel);
    if (!s.tags.empty()) {
      int32_t previous = -1;
      for (size_t t = 0; t < length; ++t) {
        const int32_t w = f.word_ids[t];  // -1 for special tokens and padding: they keep -100
        if (w >= 0) {
          const int32_t tag = s.tags[static_cast<size_t>(w)];
          if (w != previous) f.labels[t] = tag;
          else if (options.label_all_tokens) f.labels[t] = tags.b_to_i[static_cast<size_t>(tag)];
        }
        previous = w;
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<uint8_t> scored_positions(const TokenFeature& feature, bool label_all_tokens) {
  std::vector<uint8_t> scored(feature.word_ids.size(), 0);
  int32_t previous = -1;
  for (size_t t = 0; t < feature.word_ids.size(); ++t) {
    const int32_t w = feature.word_ids[t];
    scored[t] = w >= 0 && (w != previous || label_all_tokens);
    previous = w;
  }
  return scored;
}

}  // namespace cpuft
