// Accuracy of the vector exp and erf against the C library in double.
#include <limits>

#include "kernel_test_util.h"
#include "kernels/vec_math_fns.h"

namespace cpuft::test {
namespace {

class VecMath : public IsaTest {
 protected:
  const VecMathFns& fns() const { return vec_math(GetParam()); }
};

std::vector<float> linspace(float lo, float hi, int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = lo + (hi - lo) * static_cast<float>(i) / (n - 1);
  return v;
}

TEST_P(VecMath, ExpWithinTwoUlpsOverTheNormalRange) {
  std::vector<float> x = linspace(-87.0f, 88.0f, 200001);
  std::vector<float> y(x.size()), want(x.size());
  fns().exp_f32(y.data(), x.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) want[i] = static_cast<float>(std::exp(double(x[i])));
  double err = max_rel_err(y, want);
  std::printf("[ MEASURED ] exp max rel err %.3g\n", err);
  EXPECT_LT(err, 2.5e-7);
}

TEST_P(VecMath, ExpUnderflowsAndOverflowsLikeTheLibrary) {
  const float lowest = std::numeric_limits<float>::lowest();
  std::vector<float> x = {lowest, -1e30f, -200.0f, -104.0f, 0.0f, 89.0f, 1e30f,
                          -std::numeric_limits<float>::infinity()};
  std::vector<float> y(x.size());
  fns().exp_f32(y.data(), x.data(), static_cast<int64_t>(x.size()));
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_LT(y[3], 1e-44f);
  EXPECT_EQ(y[4], 1.0f);
  EXPECT_TRUE(std::isinf(y[5]));
  EXPECT_TRUE(std::isinf(y[6]));
  EXPECT_EQ(y[7], 0.0f);
}

TEST_P(VecMath, ExpAndErfPropagateNaN) {
  std::vector<float> x = {std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> y(1);
  fns().exp_f32(y.data(), x.data(), 1);
  EXPECT_TRUE(std::isnan(y[0]));
  fns().erf_f32(y.data(), x.data(), 1);
  EXPECT_TRUE(std::isnan(y[0]));
}

TEST_P(VecMath, ErfWithinAFewUlpsEverywhere) {
  std::vector<float> x = linspace(-9.0f, 9.0f, 360001);
  x.push_back(1e-20f);
  x.push_back(-3e-6f);
  std::vector<float> y(x.size()), want(x.size());
  fns().erf_f32(y.data(), x.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) want[i] = static_cast<float>(std::erf(double(x[i])));
  double err = max_rel_err(y, want);
  std::printf("[ MEASURED ] erf max rel err %.3g\n", err);
  EXPECT_LT(err, 4e-7);
}

CPUFT_INSTANTIATE_ISA_TEST(VecMath);

}  // namespace
}  // namespace cpuft::test
