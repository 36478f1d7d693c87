#include "cpuft/parallel/comm_stats.h"

#include <gtest/gtest.h>

namespace {

TEST(CommStats, UnionLengthMergesOverlapsAndSkipsGaps) {
  EXPECT_DOUBLE_EQ(cpuft::union_length({}), 0.0);
  EXPECT_DOUBLE_EQ(cpuft::union_length({{1, 3}}), 2.0);
  // [0, 2) and [1, 4) overlap; [6, 7) is apart; [5, 5) is empty; order does not matter.
  EXPECT_DOUBLE_EQ(cpuft::union_length({{6, 7}, {1, 4}, {5, 5}, {0, 2}}), 5.0);
  EXPECT_DOUBLE_EQ(cpuft::union_length({{0, 10}, {2, 3}, {4, 5}}), 10.0);  // nested
  EXPECT_DOUBLE_EQ(cpuft::union_length({{0, 1}, {1, 2}}), 2.0);            // touching
}

TEST(CommStats, Accumulates) {
  cpuft::StepCommStats a{0.5, 0.1, 100, 3}, b{0.25, 0.05, 50, 2};
  a += b;
  EXPECT_DOUBLE_EQ(a.allreduce_s, 0.75);
  EXPECT_DOUBLE_EQ(a.exposed_s, 0.15000000000000002);
  EXPECT_EQ(a.bytes, 150u);
  EXPECT_EQ(a.buckets, 5);
}

}  // namespace
