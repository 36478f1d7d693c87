// What `cpuft bench` measures a step against: the step's matrix FLOPs and the operands of its peak product.
#include "cpuft/perf/step_flops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
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

}  // namespace
}  // namespace cpuft
