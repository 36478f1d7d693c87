// Token-classification sentences -> model inputs, exactly as run_ner's tokenize_and_align_labels
// (docs/tasks.md, Data): the words tokenised each on its own (text/word_encoding.h), [CLS] tokens [SEP]
// truncated on the right to max_seq_length, padded to it or not (--pad_to_max_length); each word's tag
// on its first sub-token, -100 on the other sub-tokens (or, with --label_all_tokens, the tag mapped by
// b_to_i_label) and on [CLS], [SEP] and padding, so that the loss and the metrics ignore them.
#pragma once

#include <cstdint>
#include <vector>

#include "cpuft/data/token_classification_data.h"
#include "cpuft/text/tokenizer.h"

namespace cpuft {

// The label of a position the loss ignores (torch's CrossEntropyLoss ignore_index).
constexpr int32_t kIgnoreLabel = -100;

struct TokenFeatureOptions {
  int max_seq_length = 512;        // run_ner truncates to the tokenizer's model_max_length when unset
  bool pad_to_max_length = false;  // run_ner's default: pad per batch
  bool label_all_tokens = false;
};

struct TokenFeature {
  std::vector<int32_t> input_ids;      // [T]
  std::vector<int8_t> token_type_ids;  // [T], all 0
  std::vector<int8_t> attention_mask;  // [T]
  std::vector<int32_t> labels;         // [T], tag ids or kIgnoreLabel; all kIgnoreLabel for a sentence without tags
  std::vector<int32_t> word_ids;       // [T], the word of each token, -1 for special tokens and padding
};

std::vector<TokenFeature> build_token_features(const std::vector<TaggedSentence>& sentences, const TagSet& tags,
                                               const Tokenizer& tokenizer, const TokenFeatureOptions& options);

// Whether run_ner scores (and writes to predictions.txt) the prediction at each position: where its
// label is not -100, i.e. a word's first sub-token, or any of its sub-tokens with label_all_tokens.
// Computed from word_ids, so it holds for sentences without tags too.
std::vector<uint8_t> scored_positions(const TokenFeature& feature, bool label_all_tokens);

}  // namespace cpuft
