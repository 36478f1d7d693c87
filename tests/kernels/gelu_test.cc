// GELU (erf form) and the bias gradient: vector vs reference, torch formula, finite differences.
#include <cmath>
#include <cstring>

#include "cpuft/kernels/gelu.h"
#include "cpuft/kernels/gemm.h"

#include "cpuft/tensor/bf16.h"
#include "kernel_test_util.h"
#include "kernels/vec_math_fns.h"

namespace cpuft::test {
namespace {

class Gelu : public IsaTest {};

TEST_P(Gelu, VectorMatchesReferenceOnTails) {
  for (int N : tail_widths()) {
    for (int M = 1; M <= 5; ++M) {
      const size_t n = size_t(M) * N;
      const auto p1 = randn(n, 1, 3.0f);
      std::vector<float> o1(n), o2(n);
      std::vector<uint16_t> h2(n);
      ref().gelu_fwd(o1.data(), nullptr, p1.data(), nullptr, M, N);
      vec().gelu_fwd(o2.data(), h2.data(), p1.data(), nullptr, M, N);
      // Relative to the tensor's largest value: for x < -3, 1 + erf(x/sqrt2) cancels (in torch's
      // formula too), so tiny outputs carry only absolute accuracy.
      EXPECT_LT(max_rel_err(o2, o1, max_abs(o1)), 1e-6) << "N=" << N << " M=" << M;
      auto dout = randn(n, 3);
      std::vector<float> d1(n), d2(n);
      std::vector<float> gb1(N, 1.0f), gb2(N, 1.0f);
      ref().gelu_bwd(d1.data(), nullptr, gb1.data(), dout.data(), nullptr, p1.data(), nullptr, M, N);
      vec().gelu_bwd(d2.data(), nullptr, gb2.data(), dout.data(), nullptr, p1.data(), nullptr, M, N);
      EXPECT_LT(max_rel_err(d2, d1, max_abs(d1)), 1e-6) << "N=" << N << " M=" << M;
      // A bf16 pre-activation gives what its values in f32 give, bit for bit, forward and backward.
      std::vector<uint16_t> p16(n);
      std::vector<float> p16_as_f32(n);
      for (size_t i = 0; i < n; ++i) p16_as_f32[i] = bf16_to_f32(p16[i] = f32_to_bf16(p1[i]));
      for (const KernelTable* k : {&ref(), &vec()}) {
        std::vector<float> from16(n), from32(n), d16(n), d32(n), db16(N, 0.0f), db32(N, 0.0f);
        k->gelu_fwd(from16.data(), nullptr, nullptr, p16.data(), M, N);
        k->gelu_fwd(from32.data(), nullptr, p16_as_f32.data(), nullptr, M, N);
        EXPECT_EQ(from16, from32) << k->name << " N=" << N << " M=" << M;
        k->gelu_bwd(d16.data(), nullptr, db16.data(), dout.data(), nullptr, nullptr, p16.data(), M, N);
        k->gelu_bwd(d32.data(), nullptr, db32.data(), dout.data(), nullptr, p16_as_f32.data(), nullptr, M, N);
        EXPECT_EQ(d16, d32) << k->name << " N=" << N << " M=" << M;
        EXPECT_EQ(db16, db32) << k->name << " N=" << N << " M=" << M;
        // And a bf16 output gradient what its values in f32 give.
        std::vector<uint16_t> dout16(n);
        std::vector<float> dout16_as_f32(n), e16(n), e32(n), eb16(N, 0.0f), eb32(N, 0.0f);
        for (size_t i = 0; i < n; ++i) dout16_as_f32[i] = bf16_to_f32(dout16[i] = f32_to_bf16(dout[i]));
        k->gelu_bwd(e16.data(), nullptr, eb16.data(), nullptr, dout16.data(), nullptr, p16.data(), M, N);
        k->gelu_bwd(e32.data(), nullptr, eb32.data(), dout16_as_f32.data(), nullptr, nullptr, p16.data(), M, N);
        EXPECT_EQ(e16, e32) << k->name << " N=" << N << " M=" << M;
        EXPECT_EQ(eb16, eb32) << k->name << " N=" << N << " M=" << M;
      }
      // The fused bias gradient is bias_grad's sums of the gradient written, bit for bit.
      std::vector<float> want1(N, 1.0f), want2(N, 1.0f);
      ref().bias_grad(want1.data(), d1.data(), M, N);
      vec().bias_grad(want2.data(), d2.data(), M, N);
      EXPECT_EQ(gb1, want1) << "N=" << N << " M=" << M;
      EXPECT_EQ(gb2, want2) << "N=" << N << " M=" << M;
      std::vector<float> b1(N, 1.0f), b2(N, 1.0f);
      ref().bias_grad(b1.data(), dout.data(), M, N);
      vec().bias_grad(b2.data(), dout.data(), M, N);
      EXPECT_EQ(b1, b2);  // rows summed in the same order
    }
  }
}

TEST_P(Gelu, BackwardOutputsAreOptionalAndBf16IsTheRoundedGradient) {
  // Wide enough for several of the vector kernel's column chunks per thread, with a tail.
  const int M = 7, N = 2 * 1024 + 35;
  auto pre = randn(size_t(M) * N, 5, 2.0f), dout = randn(size_t(M) * N, 6);
  std::vector<float> d(size_t(M) * N), db_all(N, 0.5f), db_only(N, 0.5f);
  std::vector<uint16_t> h_all(size_t(M) * N), h_only(size_t(M) * N);
  vec().gelu_bwd(d.data(), h_all.data(), db_all.data(), dout.data(), nullptr, pre.data(), nullptr, M, N);
  vec().gelu_bwd(nullptr, h_only.data(), db_only.data(), dout.data(), nullptr, pre.data(), nullptr, M, N);
  EXPECT_EQ(h_all, h_only);
  EXPECT_EQ(db_all, db_only);
  for (size_t i = 0; i < d.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &d[i], 4);
    ASSERT_EQ(h_all[i], (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16) << i;
  }
  std::vector<float> want(N, 0.5f);
  vec().bias_grad(want.data(), d.data(), M, N);
  EXPECT_EQ(db_all, want);
  // In place (dpre aliasing dout), without the bias gradient.
  auto inplace = dout;
  vec().gelu_bwd(inplace.data(), nullptr, nullptr, inplace.data(), nullptr, pre.data(), nullptr, M, N);
  EXPECT_EQ(inplace, d);
}

// f32 training's backward recomputes the GELU and keeps its gradient factor in place of the pre-activation
// (gelu_recompute), then takes the gradient from it (gelu_bwd_factored): the bits of gelu_fwd and gelu_bwd
// of the pre-activation, output, gradient (in place too) and bias gradient, with tails and several column
// chunks, on the reference kernels and the vector ones.
TEST_P(Gelu, RecomputeAndFactoredBackwardGiveTheBitsOfForwardAndBackward) {
  for (const KernelTable* k : {&ref(), &vec()})
    for (int N : {5, 67, 2 * 1024 + 35})
      for (int M : {1, 3, 7}) {
        const size_t n = size_t(M) * N;
        const auto pre = randn(n, 8, 3.0f), dout = randn(n, 9);
        std::vector<float> y(n), d(n), db(N, 0.25f);
        k->gelu_fwd(y.data(), nullptr, pre.data(), nullptr, M, N);
        k->gelu_bwd(d.data(), nullptr, db.data(), dout.data(), nullptr, pre.data(), nullptr, M, N);
        auto factor = pre;
        std::vector<float> y2(n), d2(n), db2(N, 0.25f);
        k->gelu_recompute(y2.data(), factor.data(), M, N);
        EXPECT_EQ(y2, y) << k->name << " N=" << N << " M=" << M;
        k->gelu_bwd_factored(d2.data(), db2.data(), dout.data(), factor.data(), M, N);
        EXPECT_EQ(d2, d) << k->name << " N=" << N << " M=" << M;
        EXPECT_EQ(db2, db) << k->name << " N=" << N << " M=" << M;
        auto inplace = dout;
        k->gelu_bwd_factored(inplace.data(), nullptr, inplace.data(), factor.data(), M, N);
        EXPECT_EQ(inplace, d) << k->name << " N=" << N << " M=" << M;
      }
}

// The kernels look a bf16 pre-activation's GELU and gradient factor up in tables of every bf16 value
// (gelu_vec.h): the gradient, bias gradient and output of each of the 65,536 patterns (zeros, denormals,
// infinities, NaNs included) are, bit for bit, those its value gives as f32, where they are computed (NaN
// for NaN).
TEST_P(Gelu, EveryBf16PreActivationGivesWhatItsValueGives) {
  const int M = 256, N = 256;
  const size_t n = size_t(M) * N;
  std::vector<uint16_t> p16(n);
  std::vector<float> p32(n);
  for (size_t i = 0; i < n; ++i) p32[i] = bf16_to_f32(p16[i] = static_cast<uint16_t>(i));
  const auto dout = randn(n, 8);
  std::vector<float> d16(n), d32(n), db16(N, 0.0f), db32(N, 0.0f);
  vec().gelu_bwd(d16.data(), nullptr, db16.data(), dout.data(), nullptr, nullptr, p16.data(), M, N);
  vec().gelu_bwd(d32.data(), nullptr, db32.data(), dout.data(), nullptr, p32.data(), nullptr, M, N);
  // The same bits, or NaN for NaN (where the compiler orders a product's operands otherwise, the NaN kept
  // may be the other operand's).
  auto same = [](float a, float b) {
    return std::memcmp(&a, &b, sizeof(float)) == 0 || (std::isnan(a) && std::isnan(b));
  };
  for (size_t i = 0; i < n; ++i)
    ASSERT_TRUE(same(d16[i], d32[i])) << "bf16 bits 0x" << std::hex << i << ": " << d16[i] << " against " << d32[i];
  for (int c = 0; c < N; ++c) ASSERT_TRUE(same(db16[c], db32[c])) << "column " << c;
  // The forward, which looks the value up in the same way.
  std::vector<float> y16(n), y32(n);
  vec().gelu_fwd(y16.data(), nullptr, nullptr, p16.data(), M, N);
  vec().gelu_fwd(y32.data(), nullptr, p32.data(), nullptr, M, N);
  for (size_t i = 0; i < n; ++i)
    ASSERT_TRUE(same(y16[i], y32[i])) << "bf16 bits 0x" << std::hex << i << ": " << y16[i] << " against " << y32[i];
}

// The f32 loops split the normal CDF into two loops over blocks of a row (gelu_vec.h): the bits of GELU's
// value and gradient factor computed whole, vector by vector, at widths about the blocks' edges (the
// backward with an output gradient of 1).
TEST_P(Gelu, BlockedF32LoopsGiveTheBitsOfTheWholeFormula) {
  const VecMathFns& fns = vec_math(GetParam());
  for (int N : {1, 9, 255, 256, 257, 520, 3072}) {
    const int M = 3;
    const size_t n = size_t(M) * N;
    const auto x = randn(n, 50 + N, 3.0f);
    std::vector<float> value(n), factor(n), y(n), d(n), ones(n, 1.0f);
    fns.gelu_f32(value.data(), x.data(), static_cast<int64_t>(n));
    fns.gelu_grad_factor_f32(factor.data(), x.data(), static_cast<int64_t>(n));
    vec().gelu_fwd(y.data(), nullptr, x.data(), nullptr, M, N);
    vec().gelu_bwd(d.data(), nullptr, nullptr, ones.data(), nullptr, x.data(), nullptr, M, N);
    for (size_t i = 0; i < n; ++i) {
      const float want_y = value[i], want_d = factor[i];
      ASSERT_EQ(std::memcmp(&y[i], &want_y, 4), 0) << "N=" << N << " x=" << x[i] << ": " << y[i] << " vs " << want_y;
      ASSERT_EQ(std::memcmp(&d[i], &want_d, 4), 0) << "N=" << N << " x=" << x[i] << ": " << d[i] << " vs " << want_d;
    }
  }
}

TEST_P(Gelu, OutputsAreOptionalAndBf16IsTheRoundedOutput) {
  const int M = 2, N = 33;
  auto pre = randn(M * N, 4, 2.0f);
  std::vector<float> out(M * N);
  std::vector<uint16_t> only_bf16(M * N), both_bf16(M * N);
  vec().gelu_fwd(nullptr, only_bf16.data(), pre.data(), nullptr, M, N);
  vec().gelu_fwd(out.data(), both_bf16.data(), pre.data(), nullptr, M, N);
  EXPECT_EQ(only_bf16, both_bf16);
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &out[i], 4);
    EXPECT_EQ(both_bf16[i], (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  }
}

// Evaluation in bf16 writes the FFN's pre-activation where its GELU goes and runs the GELU over it in place
// (model/encoder_forward.cc): the bits the training forward's GELU gives out of place, with tails.
TEST_P(Gelu, Bf16InPlaceGivesTheBitsOutOfPlace) {
  for (int N : {1, 17, 255, 3072}) {
    const int M = 3;
    const size_t n = size_t(M) * N;
    const auto x = randn(n, 60 + N, 3.0f);
    std::vector<uint16_t> pre(n), apart(n);
    for (size_t i = 0; i < n; ++i) pre[i] = f32_to_bf16(x[i]);
    vec().gelu_fwd(nullptr, apart.data(), nullptr, pre.data(), M, N);
    std::vector<uint16_t> in_place = pre;
    vec().gelu_fwd(nullptr, in_place.data(), nullptr, in_place.data(), M, N);
    ASSERT_EQ(in_place, apart) << "N=" << N;
  }
}

CPUFT_INSTANTIATE_ISA_TEST(Gelu);

TEST(GeluRef, MatchesTheErfFormulaAndItsDerivative) {
  std::vector<float> x = {-6.0f, -2.5f, -1.0f, -1e-3f, 0.0f, 1e-3f, 0.5f, 1.0f, 3.0f, 8.0f};
  std::vector<float> y(x.size()), dy(x.size()), ones(x.size(), 1.0f);
  gelu_fwd(y.data(), nullptr, x.data(), nullptr, 1, static_cast<int64_t>(x.size()));
  gelu_bwd(dy.data(), nullptr, nullptr, ones.data(), nullptr, x.data(), nullptr, 1, static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    double xd = x[i];
    double want = 0.5 * xd * (1 + std::erf(xd / std::sqrt(2.0)));
    EXPECT_NEAR(y[i], want, 1e-6 * std::max(1.0, std::fabs(want))) << x[i];
    const double h = 1e-6;
    auto g = [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); };
    double fd = (g(xd + h) - g(xd - h)) / (2 * h);
    EXPECT_NEAR(dy[i], fd, 2e-6) << x[i];
  }
}

// bf16 training's GELU forward (gelu_fwd of the bf16 pre-activation, its bf16 output): within a bf16 step
// (2^-8 relative) of the exact GELU, or 1e-7 of it in the far negative tail, over bf16 values from -12 to
// 12, zeros and a tail of odd length.
TEST(GeluBf16, TheTrainingForwardIsTheExactGeluToABf16Step) {
  std::vector<uint16_t> x;
  for (float v = -12.0f; v <= 12.0f; v += 0.0137f) x.push_back(f32_to_bf16(v));
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 100.0f, -100.0f}) x.push_back(f32_to_bf16(v));
  if (x.size() % 2 == 0) x.push_back(f32_to_bf16(0.75f));  // a tail of odd length
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<uint16_t> y(x.size(), 0xffff);
  gelu_fwd(nullptr, y.data(), nullptr, x.data(), 1, n);
  for (int64_t i = 0; i < n; ++i) {
    const double xd = bf16_to_f32(x[i]), exact = 0.5 * xd * std::erfc(-xd / std::sqrt(2.0));
    EXPECT_NEAR(bf16_to_f32(y[i]), exact, std::ldexp(std::fabs(exact), -8) + 1e-7) << xd;
  }
}

TEST(GeluRef, BiasGradAccumulatesColumnSums) {
  std::vector<float> dy = {1, 2, 3, 4, 5, 6}, db = {10, 20, 30};
  bias_grad(db.data(), dy.data(), 2, 3);
  EXPECT_EQ(db, (std::vector<float>{15, 27, 39}));
}

}  // namespace
}  // namespace cpuft::test
