#include "cpuft/data/batch.h"

#include <gtest/gtest.h>

#include "cpuft/util/error.h"

namespace {

cpuft::Feature make_feature(int32_t first_id, int seq_len, int32_t start, int32_t end) {
  cpuft::Feature f;
  for (int i = 0; i < seq_len; ++i) {
    f.input_ids.push_back(first_id + i);
    f.token_type_ids.push_back(i >= 2 ? 1 : 0);
    f.attention_mask.push_back(i < seq_len - 1 ? 1 : 0);
  }
  f.start_position = start;
  f.end_position = end;
  return f;
}

}  // namespace

TEST(Batch, GathersRowsInIndexOrder) {
  std::vector<cpuft::Feature> features = {make_feature(100, 4, 1, 2), make_feature(200, 4, 0, 0),
                                          make_feature(300, 4, 3, 3)};
  std::vector<int64_t> order = {2, 0, 1};
  cpuft::BatchBuffers b;
  b.gather(features, order, 0, 2, 4);
  EXPECT_EQ(b.rows, 2);
  EXPECT_EQ(b.input_ids, (std::vector<int32_t>{300, 301, 302, 303, 100, 101, 102, 103}));
  EXPECT_EQ(b.token_type_ids, (std::vector<int8_t>{0, 0, 1, 1, 0, 0, 1, 1}));
  EXPECT_EQ(b.attention_mask, (std::vector<int8_t>{1, 1, 1, 0, 1, 1, 1, 0}));
  EXPECT_EQ(b.start_positions, (std::vector<int32_t>{3, 1}));
  EXPECT_EQ(b.end_positions, (std::vector<int32_t>{3, 2}));
}

TEST(Batch, FeatureOfWrongLengthIsAnError) {
  std::vector<cpuft::Feature> features = {make_feature(1, 3, 0, 0)};
  cpuft::BatchBuffers b;
  EXPECT_THROW(b.gather(features, {0}, 0, 1, 4), cpuft::Error);
}
