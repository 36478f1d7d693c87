// Features: the fixed-length windows the model sees, built from SQuAD examples exactly as
// run_qa.py's prepare_train_features / prepare_validation_features (docs/parity.md, Features).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cpuft {

// One SQuAD question with its context (docs/parity.md, SQuAD input).
struct Answer {
  std::string text;
  int64_t answer_start = 0;  // code-point index into the context, as in the JSON
};

struct Example {
  std::string id;
  std::string title;
  std::string context;
  std::string question;
  std::vector<Answer> answers;  // empty for SQuAD v2 unanswerable questions
  bool is_impossible = false;
};

// A code-point span [begin, end) into the example's context; (-1, -1) marks a token that is not
// part of the context (question, special tokens, padding) in evaluation features.
struct Span {
  int64_t begin = -1;
  int64_t end = -1;
};

struct Feature {
  // [max_seq_length] padded with the pad id, or (--pad_to_max_length false) the window's own length
  std::vector<int32_t> input_ids;
  std::vector<int8_t> token_type_ids;   // as input_ids, 0 question / 1 context (BERT only)
  std::vector<int8_t> attention_mask;   // as input_ids, 1 real token / 0 padding
  int32_t example_index = -1;           // index into the example list this feature came from
  // Training features: token positions of the answer, or the [CLS] index (0) when the answer is
  // not wholly inside this window.
  int32_t start_position = 0;
  int32_t end_position = 0;
  // Evaluation features: per token, its span in the context, (-1,-1) outside the context.
  std::vector<Span> offsets;
  // Classification features (data/task_data.h): a sequence's class id (-1: none) or regression target,
  // or a label per token (kIgnoreLabel where none, data/token_features.h; empty for the other jobs).
  int32_t label = -1;
  float target = 0;
  std::vector<int32_t> token_labels;
};

// The tokens of a feature a forward pass computes: up to and including its last unmasked one (the
// rest is padding no real token attends to); all of them when none is unmasked (transformers then
// attends uniformly over every position). QaModel::forward applies the same rule to padded batches.
inline int feature_length(const Feature& f) {
  for (size_t t = f.attention_mask.size(); t > 0; --t)
    if (f.attention_mask[t - 1]) return static_cast<int>(t);
  return static_cast<int>(f.input_ids.size());
}

struct FeatureOptions {
  int max_seq_length = 384;
  int doc_stride = 128;
  bool pad_to_max_length = true;
};

}  // namespace cpuft
