// Accuracy of the vector exp and normal CDF against the C library in double.
#include <cstring>
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

TEST_P(VecMath, ExpAndNormalCdfPropagateNaN) {
  std::vector<float> x = {std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> y(1);
  fns().exp_f32(y.data(), x.data(), 1);
  EXPECT_TRUE(std::isnan(y[0]));
  fns().normal_cdf_f32(y.data(), x.data(), 1);
  EXPECT_TRUE(std::isnan(y[0]));
}

// Relative to Phi itself on both tails (down to 1e-30, Phi(-11.4)), where 1 + erf(x / sqrt2) would
// have cancelled to nothing. In the lower tail the error grows as x^2 / 2, the exponent that exp's
// argument carries with an f32 rounding (about 1.2e-5 relative at Phi(-11) ~ 2e-28).
TEST_P(VecMath, NormalCdfWithinAFewUlpsEverywhere) {
  std::vector<float> x = linspace(-11.4f, 9.0f, 400001);
  x.push_back(1e-20f);
  x.push_back(-3e-6f);
  std::vector<float> y(x.size());
  fns().normal_cdf_f32(y.data(), x.data(), static_cast<int64_t>(x.size()));
  double worst = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double xd = x[i], want = 0.5 * std::erfc(-xd / std::sqrt(2.0));
    worst = std::max(worst, std::fabs(y[i] - want) / want / std::max(1.0, xd * xd / 2));
  }
  std::printf("[ MEASURED ] normal cdf max rel err / max(1, x^2 / 2) %.3g\n", worst);
  EXPECT_LT(worst, 6e-7);
}

TEST_P(VecMath, NormalCdfIsExactlyZeroAndOneAtTheEnds) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {-inf, -1e30f, -20.0f, 20.0f, 1e30f, inf};
  std::vector<float> y(x.size());
  fns().normal_cdf_f32(y.data(), x.data(), static_cast<int64_t>(x.size()));
  EXPECT_EQ(y, (std::vector<float>{0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f}));
}

CPUFT_INSTANTIATE_ISA_TEST(VecMath);

// exp and the normal CDF give the same bits on AVX2 and AVX-512 (2^n as two factors there, by vscalefps
// here), over the whole range exp's argument is clamped to, its denormal results and both clamps.
TEST(VecMathIsas, ExpAndNormalCdfAreTheSameBitsOnEveryVectorIsa) {
  if (!isa_supported(Isa::kAvx512)) GTEST_SKIP() << "this CPU runs one vector ISA only";
  std::vector<float> x = linspace(-110.0f, 95.0f, 2000001);
  const std::vector<float> low = linspace(-104.5f, -86.0f, 500001);  // denormal and underflowing results
  x.insert(x.end(), low.begin(), low.end());
  for (float v : {-104.0f, 88.8f, 88.72f, 0.0f, -0.0f, 1e-30f, -1e30f, 1e30f}) x.push_back(v);
  const int64_t n = static_cast<int64_t>(x.size());
  for (const auto fn : {&VecMathFns::exp_f32, &VecMathFns::normal_cdf_f32}) {
    std::vector<float> y2(x.size()), y512(x.size());
    (vec_math_avx2().*fn)(y2.data(), x.data(), n);
    (vec_math_avx512().*fn)(y512.data(), x.data(), n);
    for (size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(std::memcmp(&y2[i], &y512[i], sizeof(float)), 0)
          << (fn == &VecMathFns::exp_f32 ? "exp(" : "cdf(") << x[i] << "): " << y2[i] << " vs " << y512[i];
  }
}

}  // namespace
}  // namespace cpuft::test
