// Masked softmax: vector vs reference, HF masking semantics, gradient vs finite differences.
#include "cpuft/kernels/softmax.h"

#include "cpuft/tensor/bf16.h"
#include "kernel_test_util.h"

namespace cpuft::test {
namespace {

std::vector<int8_t> make_mask(int B, int T, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<int8_t> m(size_t(B) * T);
  for (auto& v : m) v = static_cast<int8_t>(gen() % 4 != 0);
  for (int b = 0; b < B; ++b) m[size_t(b) * T] = 1;
  return m;
}

class Softmax : public IsaTest {};

TEST_P(Softmax, VectorMatchesReferenceOnTails) {
  for (int T : tail_widths()) {
    const int max_heads = T > 64 ? 2 : 5;  // (B,H,T,T) has H*T rows: 1..5 rows when T = 1
    for (int heads = 1; heads <= max_heads; ++heads) {
      const int B = 1, H = heads;
      const int64_t n = int64_t(B) * H * T * T;
      auto s = randn(n, 1, 3.0f);
      auto mask = make_mask(B, T, 2);
      for (float divisor : {1.0f, 5.656854f}) {
        std::vector<float> p1(n), p2(n);
        std::vector<uint16_t> h2(n);
        ref().softmax_fwd(p1.data(), nullptr, s.data(), mask.data(), B, H, T, T, divisor,
                          kMaskLowestF32);
        vec().softmax_fwd(p2.data(), h2.data(), s.data(), mask.data(), B, H, T, T, divisor,
                          kMaskLowestF32);
        // The reference sums a row sequentially in f32 (error growing with T), the vector
        // kernel in W lanes: 5e-6 relative covers T = 769.
        EXPECT_LT(max_rel_err(p2, p1, 1e-3), 5e-6) << "T=" << T << " H=" << H;
        auto dp = randn(n, 3);
        std::vector<float> d1(n), d2(n);
        ref().softmax_bwd(d1.data(), nullptr, dp.data(), p1.data(), mask.data(), B, H, T, T, divisor);
        vec().softmax_bwd(d2.data(), nullptr, dp.data(), p1.data(), mask.data(), B, H, T, T, divisor);
        EXPECT_LT(max_rel_err(d2, d1, max_abs(d1) + 1e-30), 2e-6) << "T=" << T;
        // The bf16 copy is the rounded gradient, with or without the f32 one.
        std::vector<uint16_t> b_both(n), b_only(n);
        std::vector<float> d3(n);
        vec().softmax_bwd(d3.data(), b_both.data(), dp.data(), p1.data(), mask.data(), B, H, T, T, divisor);
        vec().softmax_bwd(nullptr, b_only.data(), dp.data(), p1.data(), mask.data(), B, H, T, T, divisor);
        EXPECT_EQ(d3, d2);
        EXPECT_EQ(b_both, b_only);
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(b_both[i], f32_to_bf16(d2[i])) << "T=" << T << " at " << i;
      }
    }
  }
}

TEST_P(Softmax, FullyMaskedRowIsUniformAndMaskedKeysGetNothing) {
  const int B = 2, H = 2, T = 19;
  auto s = randn(size_t(B) * H * T * T, 5, 10.0f);
  std::vector<int8_t> mask(size_t(B) * T, 1);
  for (int t = 0; t < T; ++t) mask[t] = 0;  // batch 0: every key masked
  mask[T + 3] = 0;                          // batch 1: key 3 masked
  for (float lowest : {kMaskLowestF32, kMaskLowestBf16}) {
    std::vector<float> p(s.size());
    vec().softmax_fwd(p.data(), nullptr, s.data(), mask.data(), B, H, T, T, 1.0f, lowest);
    for (int i = 0; i < H * T * T; ++i) ASSERT_FLOAT_EQ(p[i], 1.0f / T) << i;
    for (int row = H * T; row < 2 * H * T; ++row) {
      EXPECT_EQ(p[size_t(row) * T + 3], 0.0f);
      double sum = 0;
      for (int c = 0; c < T; ++c) sum += p[size_t(row) * T + c];
      EXPECT_NEAR(sum, 1.0, 1e-6);
    }
    auto dp = randn(p.size(), 6);
    std::vector<float> ds(p.size());
    vec().softmax_bwd(ds.data(), nullptr, dp.data(), p.data(), mask.data(), B, H, T, T, 1.0f);
    for (int i = 0; i < H * T * T; ++i) ASSERT_EQ(ds[i], 0.0f);  // masked_fill blocks gradient
    for (int row = H * T; row < 2 * H * T; ++row) EXPECT_EQ(ds[size_t(row) * T + 3], 0.0f);
  }
}

TEST_P(Softmax, InPlaceAndBf16CopyAgree) {
  const int B = 1, H = 3, T = 37;
  auto s = randn(size_t(B) * H * T * T, 7);
  std::vector<float> p(s.size());
  std::vector<uint16_t> bf(s.size());
  vec().softmax_fwd(p.data(), bf.data(), s.data(), nullptr, B, H, T, T, 8.0f, kMaskLowestF32);
  vec().softmax_fwd(s.data(), nullptr, s.data(), nullptr, B, H, T, T, 8.0f, kMaskLowestF32);
  EXPECT_EQ(p, s);
  for (size_t i = 0; i < p.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &p[i], 4);
    ASSERT_EQ(bf[i], (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  }
}

// Tk < Tq: the rows of a right-padded sequence's scores cut to its Tk real keys give the same
// probabilities and gradients as the full T x T softmax (where the padded keys get exactly 0).
TEST_P(Softmax, RowsOverTheRealKeysMatchTheFullPaddedSoftmax) {
  const int B = 2, H = 2, T = 41, Tk = 29;
  const size_t full = size_t(B) * H * T * T, cut = size_t(B) * H * T * Tk;
  auto s = randn(full, 21, 3.0f), dp = randn(full, 22);
  std::vector<int8_t> mask(size_t(B) * T, 0), mask_cut(size_t(B) * Tk, 1);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < Tk; ++t) mask[size_t(b) * T + t] = 1;
  mask_cut[5] = mask[5] = 0;  // a masked key among the real ones too
  std::vector<float> sc(cut), dpc(cut);
  for (size_t row = 0; row < size_t(B) * H * T; ++row)
    for (int c = 0; c < Tk; ++c) {
      sc[row * Tk + c] = s[row * T + c];
      dpc[row * Tk + c] = dp[row * T + c];
    }
  std::vector<float> p(full), pc(cut), pr(cut), ds(full), dsc(cut);
  vec().softmax_fwd(p.data(), nullptr, s.data(), mask.data(), B, H, T, T, 2.0f, kMaskLowestF32);
  vec().softmax_fwd(pc.data(), nullptr, sc.data(), mask_cut.data(), B, H, T, Tk, 2.0f, kMaskLowestF32);
  ref().softmax_fwd(pr.data(), nullptr, sc.data(), mask_cut.data(), B, H, T, Tk, 2.0f, kMaskLowestF32);
  EXPECT_LT(max_rel_err(pc, pr, 1e-3), 5e-6);
  vec().softmax_bwd(ds.data(), nullptr, dp.data(), p.data(), mask.data(), B, H, T, T, 2.0f);
  vec().softmax_bwd(dsc.data(), nullptr, dpc.data(), pc.data(), mask_cut.data(), B, H, T, Tk, 2.0f);
  for (size_t row = 0; row < size_t(B) * H * T; ++row) {
    for (int c = 0; c < Tk; ++c) {
      ASSERT_NEAR(pc[row * Tk + c], p[row * T + c], 1e-6f) << row << "," << c;
      ASSERT_NEAR(dsc[row * Tk + c], ds[row * T + c], 1e-6f) << row << "," << c;
    }
    for (int c = Tk; c < T; ++c) ASSERT_EQ(p[row * T + c], 0.0f);
  }
}

CPUFT_INSTANTIATE_ISA_TEST(Softmax);

TEST(SoftmaxRef, GradientMatchesFiniteDifferences) {
  for (Isa isa : {Isa::kRef, kernel_isa()}) {
    const int B = 1, H = 2, T = 5;
    const float divisor = 2.5f;
    auto s = randn(size_t(B) * H * T * T, 11, 2.0f), R = randn(s.size(), 12);
    std::vector<int8_t> mask = {1, 1, 0, 1, 1};
    std::vector<float> p(s.size()), ds(s.size());
    const KernelTable& k = kernel_table(isa);
    k.softmax_fwd(p.data(), nullptr, s.data(), mask.data(), B, H, T, T, divisor, kMaskLowestF32);
    k.softmax_bwd(ds.data(), nullptr, R.data(), p.data(), mask.data(), B, H, T, T, divisor);
    // Double forward: L = sum(softmax(masked(s / divisor)) * R).
    auto loss = [&](const std::vector<double>& sd) {
      double L = 0;
      for (int row = 0; row < H * T; ++row) {
        double mx = -1e300, sum = 0;
        std::vector<double> z(T);
        for (int c = 0; c < T; ++c) {
          z[c] = mask[c] ? sd[row * T + c] / divisor : -3.4028234663852886e38;
          mx = std::max(mx, z[c]);
        }
        for (int c = 0; c < T; ++c) sum += std::exp(z[c] - mx);
        for (int c = 0; c < T; ++c) L += std::exp(z[c] - mx) / sum * R[row * T + c];
      }
      return L;
    };
    std::vector<double> sd(s.begin(), s.end());
    double worst = 0;
    for (size_t i = 0; i < sd.size(); ++i) {
      const double h = 1e-6, keep = sd[i];
      sd[i] = keep + h;
      double lp = loss(sd);
      sd[i] = keep - h;
      double lm = loss(sd);
      sd[i] = keep;
      worst = std::max(worst, std::fabs((lp - lm) / (2 * h) - ds[i]));
    }
    std::printf("[ MEASURED ] softmax %s max |grad - fd| %.3g\n", isa_name(isa), worst);
    EXPECT_LT(worst, 1e-6);
  }
}

}  // namespace
}  // namespace cpuft::test
