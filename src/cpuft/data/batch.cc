#include "cpuft/data/batch.h"

#include <algorithm>

#include "cpuft/util/error.h"

namespace cpuft {

void BatchBuffers::gather(const std::vector<Feature>& features, const std::vector<int64_t>& indices,
                          size_t begin, size_t end, int seq_len_) {
  rows = static_cast<int>(end - begin);
  seq_len = seq_len_;
  const size_t n = static_cast<size_t>(rows) * seq_len;
  input_ids.resize(n);
  token_type_ids.resize(n);
  attention_mask.resize(n);
  start_positions.resize(rows);
  end_positions.resize(rows);
  for (int r = 0; r < rows; ++r) {
    const Feature& f = features.at(static_cast<size_t>(indices.at(begin + r)));
    if (static_cast<int>(f.input_ids.size()) != seq_len)
      fail("batch: feature ", indices[begin + r], " has ", f.input_ids.size(), " tokens, expected ",
           seq_len);
    const size_t o = static_cast<size_t>(r) * seq_len;
    std::copy(f.input_ids.begin(), f.input_ids.end(), input_ids.begin() + o);
    if (f.token_type_ids.empty())
      std::fill_n(token_type_ids.begin() + o, seq_len, int8_t{0});
    else
      std::copy(f.token_type_ids.begin(), f.token_type_ids.end(), token_type_ids.begin() + o);
    std::copy(f.attention_mask.begin(), f.attention_mask.end(), attention_mask.begin() + o);
    start_positions[r] = f.start_position;
    end_positions[r] = f.end_position;
  }
}

}  // namespace cpuft
