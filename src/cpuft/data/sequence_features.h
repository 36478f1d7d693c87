// Text-classification examples -> model inputs, exactly as run_glue's preprocess_function calls the fast
// tokenizer: tokenizer(sentence1[, sentence2], padding="max_length" | False, max_length, truncation=True)
// (docs/tasks.md, Data): [CLS] a [SEP] (b [SEP]), token types 0 for the first segment and 1 for the second,
// the longest_first truncation of the tokenizers library for pairs (the shorter sequence keeps its length
// when it fits in half the budget, else both get half and the longer one, or the second when they are
// equal, the odd token), right truncation of a single sentence, and right padding with the pad id, type 0,
// mask 0.
#pragma once

#include <cstdint>
#include <vector>

#include "cpuft/data/text_classification_data.h"
#include "cpuft/text/tokenizer.h"

namespace cpuft {

struct SequenceFeatureOptions {
  int max_seq_length = 128;       // run_glue's default; the caller caps it at the tokenizer's model_max_length
  bool pad_to_max_length = true;  // run_glue's default; false: each feature as long as its tokens
};

struct SequenceFeature {
  std::vector<int32_t> input_ids;      // [T]
  std::vector<int8_t> token_type_ids;  // [T]
  std::vector<int8_t> attention_mask;  // [T]
  int32_t label = -1;                  // class id (-1: none)
  float target = 0;                    // regression label
};

// Token counts (a, b) of a pair after longest_first truncation to `budget` tokens (the tokenizers
// library's truncate_encodings), for sequences of n_a and n_b tokens.
void longest_first_lengths(size_t n_a, size_t n_b, size_t budget, size_t* keep_a, size_t* keep_b);

// One feature per example, in order. Throws when max_seq_length cannot hold the special tokens.
std::vector<SequenceFeature> build_sequence_features(const std::vector<TextExample>& examples, bool pairs,
                                                     const Tokenizer& tokenizer, const SequenceFeatureOptions& options);

}  // namespace cpuft
