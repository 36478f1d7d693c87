// Batches: the rows of a set of features gathered into the contiguous arrays the model reads,
// padded (training: every window of the batch padded to one length) or packed (evaluation: each
// window's real tokens only, back to back).
#pragma once

#include <cstdint>
#include <vector>

#include "cpuft/data/features.h"

namespace cpuft {

struct BatchBuffers {
  int rows = 0;
  int seq_len = 0;  // padded: every row's length; packed: the longest a row may be
  std::vector<int32_t> input_ids;       // padded (rows, seq_len); packed (tokens)
  std::vector<int8_t> token_type_ids;   // as input_ids
  std::vector<int8_t> attention_mask;   // as input_ids
  std::vector<int32_t> start_positions; // (rows); empty in packed batches
  std::vector<int32_t> end_positions;   // (rows)
  // Classification labels: (rows) class ids, or (rows, seq_len) token labels, -100 on padding, when
  // the features have token labels; targets (rows) regression labels. Empty in packed batches.
  std::vector<int32_t> labels;
  std::vector<float> targets;
  std::vector<int32_t> cu_seqlens;      // packed: (rows + 1) window offsets; empty when padded

  // Gathers features[indices[i]] for i in [begin, end) into rows 0..end-begin-1, each padded on the
  // right to seq_len tokens as transformers' DataCollatorWithPadding pads (input_ids with pad_id,
  // token_type_ids 0, attention_mask 0). A feature longer than seq_len is an error.
  void gather(const std::vector<Feature>& features, const std::vector<int64_t>& indices, size_t begin,
              size_t end, int seq_len, int32_t pad_id);

  // Packs features [begin, end): each one's first feature_length() tokens, back to back, with their
  // offsets in cu_seqlens; seq_len bounds every window (the model's row width of the logits).
  void pack(const std::vector<Feature>& features, size_t begin, size_t end, int seq_len);
};

// The longest feature (in tokens, padding included) among features[indices[begin, end)]: the length
// DataCollatorWithPadding pads that batch to.
int longest_feature(const std::vector<Feature>& features, const std::vector<int64_t>& indices, size_t begin,
                    size_t end);

}  // namespace cpuft
