#include "cpuft/data/batch.h"

#include <gtest/gtest.h>

#include "cpuft/util/error.h"

namespace {

// A feature of `seq_len` tokens (ids first_id, first_id + 1, ...), the last one padding (mask 0).
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

// A feature of `len` real tokens and no padding (--pad_to_max_length false).
cpuft::Feature unpadded(int32_t first_id, int len) {
  cpuft::Feature f;
  for (int i = 0; i < len; ++i) {
    f.input_ids.push_back(first_id + i);
    f.token_type_ids.push_back(i >= 1 ? 1 : 0);
    f.attention_mask.push_back(1);
  }
  f.start_position = len - 1;
  f.end_position = len - 1;
  return f;
}

}  // namespace

TEST(Batch, GathersRowsInIndexOrder) {
  std::vector<cpuft::Feature> features = {make_feature(100, 4, 1, 2), make_feature(200, 4, 0, 0),
                                          make_feature(300, 4, 3, 3)};
  std::vector<int64_t> order = {2, 0, 1};
  cpuft::BatchBuffers b;
  b.gather(features, order, 0, 2, 4, 0);
  EXPECT_EQ(b.rows, 2);
  EXPECT_EQ(b.input_ids, (std::vector<int32_t>{300, 301, 302, 303, 100, 101, 102, 103}));
  EXPECT_EQ(b.token_type_ids, (std::vector<int8_t>{0, 0, 1, 1, 0, 0, 1, 1}));
  EXPECT_EQ(b.attention_mask, (std::vector<int8_t>{1, 1, 1, 0, 1, 1, 1, 0}));
  EXPECT_EQ(b.start_positions, (std::vector<int32_t>{3, 1}));
  EXPECT_EQ(b.end_positions, (std::vector<int32_t>{3, 2}));
  EXPECT_TRUE(b.cu_seqlens.empty());
}

// --pad_to_max_length false: DataCollatorWithPadding pads each batch on the right to its longest
// feature, input_ids with the pad id, token_type_ids and attention_mask with 0; labels untouched.
TEST(Batch, PadsEachBatchToItsLongestAsTheCollatorDoes) {
  std::vector<cpuft::Feature> features = {unpadded(10, 3), unpadded(20, 5), unpadded(30, 2)};
  const std::vector<int64_t> order = {0, 2, 1};
  EXPECT_EQ(cpuft::longest_feature(features, order, 0, 2), 3);
  EXPECT_EQ(cpuft::longest_feature(features, order, 0, 3), 5);
  cpuft::BatchBuffers b;
  b.gather(features, order, 0, 2, cpuft::longest_feature(features, order, 0, 2), 7);
  EXPECT_EQ(b.seq_len, 3);
  EXPECT_EQ(b.input_ids, (std::vector<int32_t>{10, 11, 12, 30, 31, 7}));
  EXPECT_EQ(b.token_type_ids, (std::vector<int8_t>{0, 1, 1, 0, 1, 0}));
  EXPECT_EQ(b.attention_mask, (std::vector<int8_t>{1, 1, 1, 1, 1, 0}));
  EXPECT_EQ(b.start_positions, (std::vector<int32_t>{2, 1}));
  // A longer padded length (the longest of the global batch, on another rank) pads further.
  b.gather(features, order, 0, 1, 5, 7);
  EXPECT_EQ(b.input_ids, (std::vector<int32_t>{10, 11, 12, 7, 7}));
}

TEST(Batch, FeatureLongerThanTheBatchIsAnError) {
  std::vector<cpuft::Feature> features = {make_feature(1, 5, 0, 0)};
  cpuft::BatchBuffers b;
  EXPECT_THROW(b.gather(features, {0}, 0, 1, 4, 0), cpuft::Error);
}

// Evaluation packs each feature's real tokens (up to its last unmasked one) back to back.
TEST(Batch, PacksRealTokensWithWindowOffsets) {
  std::vector<cpuft::Feature> features = {make_feature(100, 4, 0, 0), unpadded(200, 2), make_feature(300, 3, 0, 0)};
  EXPECT_EQ(cpuft::feature_length(features[0]), 3);
  EXPECT_EQ(cpuft::feature_length(features[1]), 2);
  cpuft::BatchBuffers b;
  b.pack(features, 0, 3, 4);
  EXPECT_EQ(b.rows, 3);
  EXPECT_EQ(b.seq_len, 4);
  EXPECT_EQ(b.cu_seqlens, (std::vector<int32_t>{0, 3, 5, 7}));
  EXPECT_EQ(b.input_ids, (std::vector<int32_t>{100, 101, 102, 200, 201, 300, 301}));
  EXPECT_EQ(b.token_type_ids, (std::vector<int8_t>{0, 0, 1, 0, 1, 0, 0}));
  EXPECT_EQ(b.attention_mask, std::vector<int8_t>(7, 1));
  EXPECT_TRUE(b.start_positions.empty());
  b.pack(features, 1, 2, 4);
  EXPECT_EQ(b.cu_seqlens, (std::vector<int32_t>{0, 2}));
  EXPECT_THROW(b.pack(features, 0, 1, 2), cpuft::Error);  // 3 real tokens in rows of at most 2
}

// A feature without any unmasked token is computed whole (transformers attends over all of it).
TEST(Batch, FeatureWithNoRealTokenIsComputedWhole) {
  cpuft::Feature f = unpadded(5, 3);
  f.attention_mask.assign(3, 0);
  EXPECT_EQ(cpuft::feature_length(f), 3);
}
