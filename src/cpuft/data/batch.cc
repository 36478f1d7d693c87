#include "cpuft/data/batch.h"

#include <algorithm>

#include "cpuft/util/error.h"

namespace cpuft {

void BatchBuffers::gather(const std::vector<Feature>& features, const std::vector<int64_t>& indices,
                          size_t begin, size_t end, int seq_len_, int32_t pad_id) {
  rows = static_cast<int>(end - begin);
  seq_len = seq_len_;
  const size_t n = static_cast<size_t>(rows) * seq_len;
  input_ids.assign(n, pad_id);
  token_type_ids.assign(n, 0);
  attention_mask.assign(n, 0);
  start_positions.resize(rows);
  end_positions.resize(rows);
  targets.resize(rows);
  const bool token_labels = rows > 0 && !features.at(static_cast<size_t>(indices.at(begin))).token_labels.empty();
  labels.assign(token_labels ? n : static_cast<size_t>(rows), -100);
  cu_seqlens.clear();
  for (int r = 0; r < rows; ++r) {
    const Feature& f = features.at(static_cast<size_t>(indices.at(begin + r)));
    if (f.input_ids.size() > static_cast<size_t>(seq_len))
      fail("batch: feature ", indices[begin + r], " has ", f.input_ids.size(), " tokens, expected at most ",
           seq_len);
    const size_t o = static_cast<size_t>(r) * seq_len;
    std::copy(f.input_ids.begin(), f.input_ids.end(), input_ids.begin() + o);
    if (!f.token_type_ids.empty()) std::copy(f.token_type_ids.begin(), f.token_type_ids.end(), token_type_ids.begin() + o);
    std::copy(f.attention_mask.begin(), f.attention_mask.end(), attention_mask.begin() + o);
    start_positions[r] = f.start_position;
    end_positions[r] = f.end_position;
    targets[r] = f.target;
    if (token_labels)
      std::copy(f.token_labels.begin(), f.token_labels.end(), labels.begin() + o);
    else
      labels[r] = f.label;
  }
}

void BatchBuffers::pack(const std::vector<Feature>& features, size_t begin, size_t end, int seq_len_) {
  rows = static_cast<int>(end - begin);
  seq_len = seq_len_;
  cu_seqlens.assign(1, 0);
  input_ids.clear();
  token_type_ids.clear();
  attention_mask.clear();
  start_positions.clear();
  end_positions.clear();
  labels.clear();
  targets.clear();
  for (size_t i = begin; i < end; ++i) {
    const Feature& f = features.at(i);
    const int len = feature_length(f);
    if (len > seq_len) fail("batch: feature ", i, " has ", len, " tokens, expected at most ", seq_len);
    input_ids.insert(input_ids.end(), f.input_ids.begin(), f.input_ids.begin() + len);
    if (f.token_type_ids.empty())
      token_type_ids.insert(token_type_ids.end(), static_cast<size_t>(len), int8_t{0});
    else
      token_type_ids.insert(token_type_ids.end(), f.token_type_ids.begin(), f.token_type_ids.begin() + len);
    attention_mask.insert(attention_mask.end(), f.attention_mask.begin(), f.attention_mask.begin() + len);
    cu_seqlens.push_back(cu_seqlens.back() + len);
  }
}

int longest_feature(const std::vector<Feature>& features, const std::vector<int64_t>& indices, size_t begin,
                    size_t end) {
  size_t longest = 0;
  for (size_t i = begin; i < end; ++i) longest = std::max(longest, features.at(static_cast<size_t>(indices.at(i))).input_ids.size());
  return static_cast<int>(longest);
}

}  // namespace cpuft
