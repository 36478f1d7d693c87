// util/op_profile: scopes count only while profiling is on, only the outermost scope counts, and
// scopes opened inside OpenMP parallel regions do not count.
#include "cpuft/util/op_profile.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <chrono>
#include <thread>

namespace cpuft {
namespace {

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

class OpProfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    op_profile_enable(true);
    op_profile_reset();
  }
  void TearDown() override { op_profile_enable(false); }
  static int64_t calls(Op op) { return op_profile_totals().calls[static_cast<int>(op)]; }
  static double seconds(Op op) { return op_profile_totals().seconds[static_cast<int>(op)]; }
};

TEST_F(OpProfileTest, ScopeAddsItsWallTime) {
  { OpScope s(Op::kGelu); sleep_ms(20); }
  { OpScope s(Op::kGelu); sleep_ms(20); }
  EXPECT_EQ(calls(Op::kGelu), 2);
  EXPECT_GE(seconds(Op::kGelu), 0.039);
  EXPECT_EQ(calls(Op::kMatmul), 0);
  EXPECT_EQ(seconds(Op::kMatmul), 0.0);
}

TEST_F(OpProfileTest, OnlyTheOutermostScopeCounts) {
  {
    OpScope outer(Op::kAttention);
    { OpScope inner(Op::kMatmul); sleep_ms(10); }
  }
  EXPECT_EQ(calls(Op::kAttention), 1);
  EXPECT_GE(seconds(Op::kAttention), 0.009);
  EXPECT_EQ(calls(Op::kMatmul), 0);
  // After the outer scope closed, a new scope is outermost again.
  { OpScope s(Op::kMatmul); }
  EXPECT_EQ(calls(Op::kMatmul), 1);
}

TEST_F(OpProfileTest, NothingCountsWhileOffEvenIfTurnedOnInside) {
  op_profile_enable(false);
  {
    OpScope s(Op::kLoss);
    op_profile_enable(true);
    { OpScope inner(Op::kDropout); }  // outermost of the scopes opened while on: counts
  }
  EXPECT_EQ(calls(Op::kLoss), 0);
  EXPECT_EQ(calls(Op::kDropout), 1);
  { OpScope s(Op::kLoss); }  // and the depth came back to 0
  EXPECT_EQ(calls(Op::kLoss), 1);
}

TEST_F(OpProfileTest, ScopesInsideParallelRegionsDoNotCount) {
#pragma omp parallel num_threads(2)
  { OpScope s(Op::kLayernorm); }
  EXPECT_EQ(calls(Op::kLayernorm), 0);
  op_profile_reset();
  EXPECT_EQ(op_profile_totals().calls[static_cast<int>(Op::kGelu)], 0);
}

TEST(OpProfileNames, EveryOpHasAName) {
  for (int i = 0; i < static_cast<int>(Op::kCount); ++i) EXPECT_STRNE(op_name(static_cast<Op>(i)), "?") << i;
  EXPECT_STREQ(op_name(Op::kMatmul), "matmul");
}

}  // namespace
}  // namespace cpuft
