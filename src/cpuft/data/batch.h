// Batches: the rows of a set of features gathered into the contiguous arrays the model reads.
#pragma once

#include <cstdint>
#include <vector>

#include "cpuft/data/features.h"

namespace cpuft {

struct BatchBuffers {
  int rows = 0;
  int seq_len = 0;
  std::vector<int32_t> input_ids;       // (rows, seq_len)
  std::vector<int8_t> token_type_ids;   // (rows, seq_len)
  std::vector<int8_t> attention_mask;   // (rows, seq_len)
  std::vector<int32_t> start_positions; // (rows)
  std::vector<int32_t> end_positions;   // (rows)

  // Gathers features[indices[i]] for i in [begin, end) into rows 0..end-begin-1. Every feature must
  // have exactly seq_len tokens (features are padded to max_seq_length).
  void gather(const std::vector<Feature>& features, const std::vector<int64_t>& indices, size_t begin,
              size_t end, int seq_len);
};

}  // namespace cpuft
