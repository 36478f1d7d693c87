// Dropout: keep fraction, mask regenerated in backward, thread-count independence, vector vs ref.
#include "cpuft/kernels/dropout.h"

#include <omp.h>

#include "cpuft/tensor/bf16.h"
#include "kernel_test_util.h"

namespace cpuft::test {
namespace {

class Dropout : public IsaTest {};

TEST_P(Dropout, VectorMatchesReferenceBitForBit) {
  for (int64_t n : flat_lengths()) {
    auto x = randn(n, 1);
    std::vector<float> a(n), b(n);
    std::vector<uint16_t> hb(n);
    const uint64_t key = 0x0123456789abcdefull;
    ref().dropout_apply(a.data(), nullptr, x.data(), nullptr, n, 1.0f / 0.9f, key, 1677722);
    vec().dropout_apply(b.data(), hb.data(), x.data(), nullptr, n, 1.0f / 0.9f, key, 1677722);
    EXPECT_EQ(a, b) << n;
  }
}

// bf16 input (the bf16 output of a product): the values of the f32 input that holds the same numbers.
TEST_P(Dropout, Bf16InputGivesWhatItsValuesGive) {
  for (int64_t n : flat_lengths()) {
    auto x = randn(n, 2, 3.0f);
    std::vector<uint16_t> x16(n);
    for (int64_t i = 0; i < n; ++i) {
      x16[i] = f32_to_bf16(x[i]);
      x[i] = bf16_to_f32(x16[i]);
    }
    const uint64_t key = 0xfedcba9876543210ull;
    for (const KernelTable* k : {&ref(), &vec()}) {
      std::vector<float> want(n), got(n, -1.0f);
      k->dropout_apply(want.data(), nullptr, x.data(), nullptr, n, 1.0f / 0.9f, key, 1677722);
      k->dropout_apply(got.data(), nullptr, nullptr, x16.data(), n, 1.0f / 0.9f, key, 1677722);
      EXPECT_EQ(want, got) << k->name << " n=" << n;
    }
    std::vector<float> want(n), got(n);
    dropout_fwd(want.data(), nullptr, x.data(), n, 0.1f, 7, 3, 100);
    dropout_fwd_bf16_in(got.data(), x16.data(), n, 0.1f, 7, 3, 100);
    EXPECT_EQ(want, got) << n;
    dropout_fwd_bf16_in(got.data(), x16.data(), n, 0.0f, 7, 3, 100);  // p = 0: the widened values
    EXPECT_EQ(x, got) << n;
  }
}

CPUFT_INSTANTIATE_ISA_TEST(Dropout);

TEST(DropoutApi, KeepFractionAndScaleAreRight) {
  const int64_t n = 1 << 20;
  std::vector<float> ones(n, 1.0f), out(n);
  for (float p : {0.1f, 0.5f}) {
    dropout_fwd(out.data(), nullptr, ones.data(), n, p, 42, 3);
    int64_t kept = 0;
    const float scale = 1.0f / (1.0f - p);
    for (float v : out) {
      ASSERT_TRUE(v == 0.0f || v == scale) << v;
      kept += v != 0.0f;
    }
    const double expect = n * (1.0 - p), sigma = std::sqrt(n * p * (1.0 - p));
    std::printf("[ MEASURED ] p=%.1f kept %lld of %lld (expected %.0f, sigma %.0f)\n", p,
                static_cast<long long>(kept), static_cast<long long>(n), expect, sigma);
    EXPECT_LT(std::fabs(kept - expect), 5 * sigma);
  }
}

TEST(DropoutApi, MaskIsAPureFunctionOfSeedStreamAndIndex) {
  const int64_t n = 100003;
  auto x = randn(n, 2);
  std::vector<float> a(n), b(n), c(n), d(n);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  dropout_fwd(a.data(), nullptr, x.data(), n, 0.1f, 7, 11);
  omp_set_num_threads(3);
  dropout_fwd(b.data(), nullptr, x.data(), n, 0.1f, 7, 11);
  omp_set_num_threads(threads);
  EXPECT_EQ(a, b);
  for (int64_t i = 0; i < n; i += 997) {
    EXPECT_EQ(a[i] != 0.0f, dropout_keep(7, 11, i, 0.1f)) << i;
  }
  dropout_fwd(c.data(), nullptr, x.data(), n, 0.1f, 8, 11);   // another seed (step)
  dropout_fwd(d.data(), nullptr, x.data(), n, 0.1f, 7, 12);   // another stream (site)
  int64_t differ_c = 0, differ_d = 0;
  for (int64_t i = 0; i < n; ++i) {
    differ_c += (a[i] != 0.0f) != (c[i] != 0.0f);
    differ_d += (a[i] != 0.0f) != (d[i] != 0.0f);
  }
  // Independent masks disagree on about 2 p (1-p) = 18% of the elements.
  EXPECT_NEAR(differ_c / double(n), 0.18, 0.01);
  EXPECT_NEAR(differ_d / double(n), 0.18, 0.01);
}

TEST(DropoutApi, BackwardRegeneratesTheForwardMask) {
  const int64_t n = 5000;
  auto x = randn(n, 3), dout = randn(n, 4);
  std::vector<float> y(n), dx(n);
  std::vector<uint16_t> ybf(n);
  dropout_fwd(y.data(), ybf.data(), x.data(), n, 0.25f, 99, 5);
  dropout_bwd(dx.data(), nullptr, dout.data(), n, 0.25f, 99, 5);
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(y[i] == 0.0f, dx[i] == 0.0f) << i;
    if (y[i] != 0.0f) {
      EXPECT_EQ(dx[i], dout[i] * (1.0f / 0.75f));
    }
  }
  auto inplace = dout;
  dropout_bwd(inplace.data(), nullptr, inplace.data(), n, 0.25f, 99, 5);
  EXPECT_EQ(inplace, dx);
}

TEST(DropoutApi, ZeroProbabilityIsIdentityAndOneGivesZeros) {
  auto x = randn(100, 5);
  std::vector<float> y(100);
  dropout_fwd(y.data(), nullptr, x.data(), 100, 0.0f, 1, 1);
  EXPECT_EQ(y, x);
  auto same = x;
  dropout_fwd(same.data(), nullptr, same.data(), 100, 0.0f, 1, 1);
  EXPECT_EQ(same, x);
  dropout_fwd(y.data(), nullptr, x.data(), 100, 1.0f, 1, 1);
  EXPECT_EQ(y, std::vector<float>(100, 0.0f));
}

TEST(DropoutApi, RejectsBadProbabilityAndHugeTensors) {
  std::vector<float> x(4), y(4);
  EXPECT_THROW(dropout_fwd(y.data(), nullptr, x.data(), 4, -0.1f, 1, 1), Error);
  EXPECT_THROW(dropout_fwd(y.data(), nullptr, x.data(), 4, 1.5f, 1, 1), Error);
  EXPECT_THROW(dropout_fwd(y.data(), nullptr, x.data(), 4, std::nanf(""), 1, 1), Error);
  EXPECT_THROW(dropout_bwd(y.data(), nullptr, x.data(), int64_t{1} << 32, 0.1f, 1, 1), Error);
}

}  // namespace
}  // namespace cpuft::test
