// What `cpuft bench` measures a step against: the step's matrix FLOPs, the operands of its peak product and
// how long that product is timed.
#include "cpuft/perf/step_flops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "cpuft/tensor/bf16.h"

namespace cpuft {
namespace {

// The peak's operands hold real values, as the model's do (a product of zeros runs faster on AMX):
// spread over [-1, 1), the same for a seed, other for another, and in bf16 the bf16 words of the f32 ones.
TEST(PeakOperand, RandomValuesInMinusOneToOne) {
  const int64_t n = 1 << 16;
  std::vector<float> a(n), b(n), other(n);
  fill_peak_operand(a.data(), n, false, 1);
  fill_peak_operand(b.data(), n, false, 1);
  fill_peak_operand(other.data(), n, false, 2);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, other);
  std::set<float> distinct(a.begin(), a.end());
  EXPECT_GT(distinct.size(), static_cast<size_t>(n / 2));
  double sum = 0.0;
  for (float v : a) {
    ASSERT_GE(v, -1.0f);
    ASSERT_LT(v, 1.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.02);
  EXPECT_LT(*std::min_element(a.begin(), a.end()), -0.99f);
  EXPECT_GT(*std::max_element(a.begin(), a.end()), 0.99f);

  std::vector<float> storage(n / 2);  // n bf16 words in the storage of n / 2 floats
  fill_peak_operand(storage.data(), n, true, 1);
  const auto* words = reinterpret_cast<const uint16_t*>(storage.data());
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(words[i], f32_to_bf16(a[i])) << i;
}

// Forward FLOPs: 2 per multiply-add of every layer's four H x H and two H x I products, the head's H x 2
// and attention's QK^T and PV (4 T H per token per layer); a training step three times that.
TEST(StepFlops, DistilBertBaseCountedFromItsShapes) {
  ModelConfig c;
  c.hidden = 768;
  c.intermediate = 3072;
  c.layers = 6;
  c.heads = 12;
  const double tokens = 8.0 * 384;
  const double forward = tokens * (2 * (6 * (4.0 * 768 * 768 + 2.0 * 768 * 3072) + 2 * 768) + 6 * 4.0 * 384 * 768);
  EXPECT_DOUBLE_EQ(step_flops(c, 8, 384, false), forward);
  EXPECT_DOUBLE_EQ(step_flops(c, 8, 384, true), 3 * forward);
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// A slow start is run off before the timing: six runs of 30 ms and then runs of 1 ms, warmed up for a
// quarter second, timed at about 1 ms. Timed from the second run (one warm-up run, as the peak was
// before), five slow runs would fill the series and its median.
TEST(RateTiming, SlowFirstRunsAreWarmUpNotTimed) {
  int calls = 0;
  const double median = median_run_seconds([&] { sleep_ms(calls++ < 6 ? 30 : 1); },
                                           RateTiming{/*warmup_s=*/0.25, /*timed_s=*/0.02, /*min_runs=*/5, 100});
  EXPECT_GT(calls, 6 + 5);
  EXPECT_LT(median, 0.015);
}

// The middle run, not the mean or the slowest: after one warm-up run, timed runs of 2, 2, 2, 40 and 40 ms.
TEST(RateTiming, MedianOfTheTimedRuns) {
  const int ms[] = {1, 2, 2, 2, 40, 40};
  int calls = 0;
  const double median = median_run_seconds([&] { sleep_ms(ms[calls++]); }, RateTiming{0.0, 0.0, 5, 5});
  EXPECT_EQ(calls, 6);
  EXPECT_GE(median, 0.002);
  EXPECT_LT(median, 0.02);
}

// At least min_runs timed runs however long they take, at most max_runs however long timed_s says, one
// warm-up run where warmup_s is 0, and one timed run where the bounds ask for none.
TEST(RateTiming, RunCountsWithinTheirBounds) {
  int calls = 0;
  median_run_seconds([&] { sleep_ms(20); ++calls; }, RateTiming{0.0, 0.001, 4, 100});
  EXPECT_EQ(calls, 1 + 4);
  calls = 0;
  median_run_seconds([&] { ++calls; }, RateTiming{0.0, 60.0, 5, 7});
  EXPECT_EQ(calls, 1 + 7);
  calls = 0;
  median_run_seconds([&] { sleep_ms(1); ++calls; }, RateTiming{0.0, 0.05, 5, 100000});
  EXPECT_GT(calls, 1 + 5);  // short runs go on until timed_s has passed
  calls = 0;
  EXPECT_GE(median_run_seconds([&] { ++calls; }, RateTiming{0.0, 0.0, 0, 0}), 0.0);
  EXPECT_EQ(calls, 1 + 1);
}

// The peak against a step at 380 GFLOP/s: read once when it is above the step; read again while it is
// below, the highest reading kept (not the last); at most `tries` readings, and then said to be below.
TEST(PeakForStep, ReadOnceWhenAboveTheStep) {
  int calls = 0;
  const PeakReading r = peak_for_step(380.0, [&] { return ++calls, 450.0; });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(r.readings, 1);
  EXPECT_DOUBLE_EQ(r.gflops, 450.0);
  EXPECT_FALSE(r.below_step);
}

TEST(PeakForStep, ReadAgainWhileBelowTheStepAndTheHighestKept) {
  const double readings[] = {225.0, 440.0, 300.0};
  int calls = 0;
  const PeakReading r = peak_for_step(380.0, [&] { return readings[calls++]; });
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(r.readings, 2);
  EXPECT_DOUBLE_EQ(r.gflops, 440.0);
  EXPECT_FALSE(r.below_step);
}

TEST(PeakForStep, BelowTheStepAfterEveryTryIsSaid) {
  const double readings[] = {225.0, 260.0, 230.0, 450.0};
  int calls = 0;
  const PeakReading r = peak_for_step(380.0, [&] { return readings[calls++]; }, 3);
  EXPECT_EQ(calls, 3);
  EXPECT_DOUBLE_EQ(r.gflops, 260.0);
  EXPECT_TRUE(r.below_step);
}

}  // namespace
}  // namespace cpuft
