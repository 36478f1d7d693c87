// Masked softmax: vector vs reference, HF masking semantics, gradient vs finite differences.
#include "cpuft/kernels/softmax.h"

#include "cpuft/kernels/dropout.h"
#include "cpuft/kernels/dropout_hash.h"

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
      for (const ScoreRead read : {ScoreRead{}, ScoreRead{0.1767767f}, ScoreRead{0.125f, true}}) {
        std::vector<float> p1(n), p2(n);
        std::vector<uint16_t> h2(n);
        ref().softmax_fwd(p1.data(), nullptr, s.data(), mask.data(), B, H, T, T, read, kMaskLowestF32, nullptr, {});
        vec().softmax_fwd(p2.data(), h2.data(), s.data(), mask.data(), B, H, T, T, read, kMaskLowestF32, nullptr, {});
        // The reference sums a row sequentially in f32 (error growing with T), the vector
        // kernel in W lanes: 5e-6 relative covers T = 769.
        EXPECT_LT(max_rel_err(p2, p1, 1e-3), 5e-6) << "T=" << T << " H=" << H;
        auto dp = randn(n, 3);
        std::vector<float> d1(n), d2(n);
        ref().softmax_bwd(d1.data(), nullptr, dp.data(), p1.data(), mask.data(), B, H, T, T, read.scale, nullptr);
        vec().softmax_bwd(d2.data(), nullptr, dp.data(), p1.data(), mask.data(), B, H, T, T, read.scale, nullptr);
        EXPECT_LT(max_rel_err(d2, d1, max_abs(d1) + 1e-30), 2e-6) << "T=" << T;
        // The bf16 copy is the rounded gradient, with or without the f32 one.
        std::vector<uint16_t> b_both(n), b_only(n);
        std::vector<float> d3(n);
        vec().softmax_bwd(d3.data(), b_both.data(), dp.data(), p1.data(), mask.data(), B, H, T, T, read.scale, nullptr);
        vec().softmax_bwd(nullptr, b_only.data(), dp.data(), p1.data(), mask.data(), B, H, T, T, read.scale, nullptr);
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
    vec().softmax_fwd(p.data(), nullptr, s.data(), mask.data(), B, H, T, T, ScoreRead{}, lowest, nullptr, {});
    for (int i = 0; i < H * T * T; ++i) ASSERT_FLOAT_EQ(p[i], 1.0f / T) << i;
    for (int row = H * T; row < 2 * H * T; ++row) {
      EXPECT_EQ(p[size_t(row) * T + 3], 0.0f);
      double sum = 0;
      for (int c = 0; c < T; ++c) sum += p[size_t(row) * T + c];
      EXPECT_NEAR(sum, 1.0, 1e-6);
    }
    auto dp = randn(p.size(), 6);
    std::vector<float> ds(p.size());
    vec().softmax_bwd(ds.data(), nullptr, dp.data(), p.data(), mask.data(), B, H, T, T, 1.0f, nullptr);
    for (int i = 0; i < H * T * T; ++i) ASSERT_EQ(ds[i], 0.0f);  // masked_fill blocks gradient
    for (int row = H * T; row < 2 * H * T; ++row) EXPECT_EQ(ds[size_t(row) * T + 3], 0.0f);
  }
}

TEST_P(Softmax, InPlaceAndBf16CopyAgree) {
  const int B = 1, H = 3, T = 37;
  auto s = randn(size_t(B) * H * T * T, 7);
  std::vector<float> p(s.size());
  std::vector<uint16_t> bf(s.size());
  vec().softmax_fwd(p.data(), bf.data(), s.data(), nullptr, B, H, T, T, ScoreRead{0.125f}, kMaskLowestF32, nullptr, {});
  vec().softmax_fwd(s.data(), nullptr, s.data(), nullptr, B, H, T, T, ScoreRead{0.125f}, kMaskLowestF32, nullptr, {});
  EXPECT_EQ(p, s);
  for (size_t i = 0; i < p.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &p[i], 4);
    ASSERT_EQ(bf[i], (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  }
}

// Scores read as a bf16 product's output (scaled, then rounded to bf16 in the first pass) give the
// bits of the softmax of scores scaled and rounded beforehand, ties to even included, on the
// reference and the vector kernel, with and without the dropout in the same passes.
TEST_P(Softmax, ScoresReadAsBf16AreTheScaledScoresRoundedBeforehand) {
  const int rows = 21, Tk = 45;
  const int64_t n = int64_t(rows) * Tk;
  auto s = randn(n, 17, 4.0f);
  // Halfway between two bf16 values once scaled by 1/8: 1 + 2^-8 (to 1) and 1 + 3 * 2^-8 (to 1 + 2^-6).
  s[3] = 8.0f * (1.0f + 1.0f / 256), s[50] = -8.0f * (1.0f + 3.0f / 256), s[Tk] = 8.0f * 3.0f;
  const auto mask = make_mask(1, Tk, 5);
  std::vector<float> rounded(s.size());
  for (int64_t i = 0; i < n; ++i) rounded[i] = round_to_bf16(s[i] * 0.125f);
  std::vector<uint8_t> keep(static_cast<size_t>(rows * softmax_dropout_row_bytes(Tk)));
  for (const KernelTable* k : {&ref(), &vec()})
    for (bool drop : {false, true}) {
      DropoutPass pass;
      pass.scale = 1.0f / 0.9f, pass.key = dropout_key_at(3, 4, 0), pass.threshold24 = dropout_threshold24(0.1f);
      pass.keep = keep.data(), pass.row_bytes = softmax_dropout_row_bytes(Tk), pass.draw = true;
      std::vector<float> p_read(n), p_before(n);
      std::vector<uint16_t> b_read(n), b_before(n);
      k->softmax_fwd(p_read.data(), b_read.data(), s.data(), mask.data(), 1, 1, rows, Tk, ScoreRead{0.125f, true},
                     kMaskLowestF32, drop ? &pass : nullptr, {});
      k->softmax_fwd(p_before.data(), b_before.data(), rounded.data(), mask.data(), 1, 1, rows, Tk, ScoreRead{},
                     kMaskLowestF32, drop ? &pass : nullptr, {});
      EXPECT_EQ(p_read, p_before) << (k == &ref() ? "ref" : "vec") << " dropout " << drop;
      EXPECT_EQ(b_read, b_before) << (k == &ref() ? "ref" : "vec") << " dropout " << drop;
    }
  // Read without rounding, the scores are only scaled: another softmax.
  std::vector<float> p_scaled(n), p_rounded(n);
  vec().softmax_fwd(p_scaled.data(), nullptr, s.data(), mask.data(), 1, 1, rows, Tk, ScoreRead{0.125f}, kMaskLowestF32,
                    nullptr, {});
  vec().softmax_fwd(p_rounded.data(), nullptr, s.data(), mask.data(), 1, 1, rows, Tk, ScoreRead{0.125f, true},
                    kMaskLowestF32, nullptr, {});
  EXPECT_NE(p_scaled, p_rounded);
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
  vec().softmax_fwd(p.data(), nullptr, s.data(), mask.data(), B, H, T, T, ScoreRead{0.5f}, kMaskLowestF32, nullptr, {});
  vec().softmax_fwd(pc.data(), nullptr, sc.data(), mask_cut.data(), B, H, T, Tk, ScoreRead{0.5f}, kMaskLowestF32,
                    nullptr, {});
  ref().softmax_fwd(pr.data(), nullptr, sc.data(), mask_cut.data(), B, H, T, Tk, ScoreRead{0.5f}, kMaskLowestF32,
                    nullptr, {});
  EXPECT_LT(max_rel_err(pc, pr, 1e-3), 5e-6);
  vec().softmax_bwd(ds.data(), nullptr, dp.data(), p.data(), mask.data(), B, H, T, T, 0.5f, nullptr);
  vec().softmax_bwd(dsc.data(), nullptr, dpc.data(), pc.data(), mask_cut.data(), B, H, T, Tk, 0.5f, nullptr);
  for (size_t row = 0; row < size_t(B) * H * T; ++row) {
    for (int c = 0; c < Tk; ++c) {
      ASSERT_NEAR(pc[row * Tk + c], p[row * T + c], 1e-6f) << row << "," << c;
      ASSERT_NEAR(dsc[row * Tk + c], ds[row * T + c], 1e-6f) << row << "," << c;
    }
    for (int c = Tk; c < T; ++c) ASSERT_EQ(p[row * T + c], 0.0f);
  }
}

// The dropout in the softmax's passes gives softmax_fwd then dropout_fwd (and dropout_bwd then
// softmax_bwd) bit for bit, with the mask index of each element over the rows back to back from
// first_index; the bits written are that mask, row by row, and applied again they give the same values.
TEST_P(Softmax, DropoutInTheSamePassesIsSoftmaxAndDropout) {
  const float p = 0.3f;
  const uint64_t seed = 9, stream = 21, first = 1000003;
  for (int Tk : {1, 7, 8, 16, 17, 63, 64, 65, 130}) {
    const int rows = 5;
    const int64_t n = int64_t(rows) * Tk, row_bytes = softmax_dropout_row_bytes(Tk);
    const auto s = randn(n, 4, 3.0f), ddrop = randn(n, 5);
    const auto mask = make_mask(1, Tk, 6);
    for (const KernelTable* k : {&ref(), &vec()}) {
      const std::string what = std::string(k->name) + " Tk=" + std::to_string(Tk);
      std::vector<float> p0(n), d32(n), ddp(n), ds0(n);
      std::vector<uint16_t> d16(n), ds016(n);
      k->softmax_fwd(p0.data(), nullptr, s.data(), mask.data(), 1, 1, rows, Tk, ScoreRead{}, kMaskLowestF32, nullptr,
                     {});
      dropout_fwd(d32.data(), d16.data(), p0.data(), n, p, seed, stream, first);
      dropout_bwd(ddp.data(), nullptr, ddrop.data(), n, p, seed, stream, first);
      k->softmax_bwd(ds0.data(), ds016.data(), ddp.data(), p0.data(), mask.data(), 1, 1, rows, Tk, 1.f, nullptr);

      std::vector<uint8_t> keep(static_cast<size_t>(rows * row_bytes), 0xa5);
      DropoutPass pass;
      pass.scale = 1.0f / (1.0f - p);
      pass.key = dropout_key_at(seed, stream, first);
      pass.threshold24 = dropout_threshold24(p);
      pass.keep = keep.data();
      pass.row_bytes = row_bytes;
      for (bool draw : {true, false}) {
        std::vector<float> p1(n), o32(n), ds1(n);
        std::vector<uint16_t> o16(n), ds116(n);
        pass.draw = draw;
        pass.out = o32.data();
        pass.out_bf16 = o16.data();
        k->softmax_fwd(p1.data(), nullptr, s.data(), mask.data(), 1, 1, rows, Tk, ScoreRead{}, kMaskLowestF32, &pass,
                       {});
        EXPECT_EQ(p1, p0) << what;
        EXPECT_EQ(o32, d32) << what << " draw " << draw;
        EXPECT_EQ(o16, d16) << what << " draw " << draw;
        pass.out = nullptr;
        pass.out_bf16 = nullptr;
        pass.draw = false;
        k->softmax_bwd(ds1.data(), ds116.data(), ddrop.data(), p1.data(), mask.data(), 1, 1, rows, Tk, 1.f, &pass);
        EXPECT_EQ(ds1, ds0) << what;
        EXPECT_EQ(ds116, ds016) << what;
      }
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < (Tk + 7) / 8 * 8; ++c) {
          const int bit = (keep[static_cast<size_t>(r * row_bytes + c / 8)] >> (c % 8)) & 1;
          ASSERT_EQ(bit, c < Tk && dropout_keep(seed, stream, first + uint64_t(r) * Tk + c, p) ? 1 : 0)
              << what << " row " << r << " col " << c;
        }
    }
  }
}

// A call that keeps its rows' max and 1 / sum, then a call that reads them (attention's forward, then its
// backward's recomputation): the same probabilities, bf16 copy and dropped values, bit for bit, as the
// passes that compute them; with and without the dropout (drawn, then its bits applied), a key mask, the
// bf16 read, and rows that end in a partial vector. Statistics that are not the row's give other values.
TEST_P(Softmax, RowStatisticsKeptThenReadGiveTheSameBits) {
  const uint64_t seed = 4, stream = 8, first = 99;
  for (int Tk : {1, 7, 16, 17, 64, 65, 130}) {
    const int rows = 6;
    const int64_t n = int64_t(rows) * Tk, row_bytes = softmax_dropout_row_bytes(Tk);
    const auto s = randn(n, 11, 3.0f);
    const auto mask = make_mask(1, Tk, 12);
    for (const KernelTable* k : {&ref(), &vec()})
      for (float p : {0.0f, 0.2f}) {
        const std::string what = std::string(k->name) + " Tk=" + std::to_string(Tk) + " p=" + std::to_string(p);
        std::vector<uint8_t> keep(static_cast<size_t>(rows * row_bytes), 0);
        DropoutPass pass;
        pass.scale = 1.0f / (1.0f - p);
        pass.key = dropout_key_at(seed, stream, first);
        pass.threshold24 = dropout_threshold24(p);
        pass.keep = keep.data();
        pass.row_bytes = row_bytes;
        std::vector<float> stats(static_cast<size_t>(2 * rows), -1.0f);
        std::vector<float> p0(n), o0(n), p1(n, 7.0f), o1(n, 7.0f);
        std::vector<uint16_t> b0(n), ob0(n), b1(n, 1), ob1(n, 1);
        const ScoreRead read{0.125f, true};
        pass.draw = true;
        pass.out = o0.data();
        pass.out_bf16 = ob0.data();
        k->softmax_fwd(p0.data(), b0.data(), s.data(), mask.data(), 1, 1, rows, Tk, read, kMaskLowestF32,
                       p > 0.f ? &pass : nullptr, SoftmaxRowStats{stats.data(), nullptr});
        for (float x : stats) ASSERT_NE(x, -1.0f) << what;
        pass.draw = false;
        pass.out = o1.data();
        pass.out_bf16 = ob1.data();
        k->softmax_fwd(p1.data(), b1.data(), s.data(), mask.data(), 1, 1, rows, Tk, read, kMaskLowestF32,
                       p > 0.f ? &pass : nullptr, SoftmaxRowStats{nullptr, stats.data()});
        EXPECT_EQ(p1, p0) << what;
        EXPECT_EQ(b1, b0) << what;
        if (p > 0.f) {
          EXPECT_EQ(o1, o0) << what;
          EXPECT_EQ(ob1, ob0) << what;
        }
        stats[1] *= 2.0f;  // row 0's 1 / sum
        k->softmax_fwd(p1.data(), nullptr, s.data(), mask.data(), 1, 1, rows, Tk, read, kMaskLowestF32, nullptr,
                       SoftmaxRowStats{nullptr, stats.data()});
        EXPECT_EQ(p1[0], 2.0f * p0[0]) << what;
      }
  }
}

CPUFT_INSTANTIATE_ISA_TEST(Softmax);

// The public calls: the same values as the table's with the pass they build; bad arguments refused.
TEST(SoftmaxDropoutApi, MatchesSoftmaxAndDropoutAndRefusesBadArguments) {
  const int rows = 3, Tk = 40;
  const int64_t n = int64_t(rows) * Tk;
  const auto s = randn(n, 7, 2.0f), g = randn(n, 8);
  std::vector<uint8_t> keep(static_cast<size_t>(rows * softmax_dropout_row_bytes(Tk)));
  const SoftmaxDropout d{0.1f, 3, 4, 77, keep.data()};
  std::vector<float> p0(n), d0(n), p1(n), d1(n), g0(n), ds0(n), ds1(n);
  softmax_fwd(p0.data(), nullptr, s.data(), nullptr, 1, 1, rows, Tk, ScoreRead{}, kMaskLowestF32);
  dropout_fwd(d0.data(), nullptr, p0.data(), n, 0.1f, 3, 4, 77);
  softmax_dropout_fwd(p1.data(), d1.data(), nullptr, s.data(), nullptr, rows, Tk, ScoreRead{}, kMaskLowestF32, d, true);
  EXPECT_EQ(p1, p0);
  EXPECT_EQ(d1, d0);
  dropout_bwd(g0.data(), nullptr, g.data(), n, 0.1f, 3, 4, 77);
  softmax_bwd(ds0.data(), nullptr, g0.data(), p0.data(), nullptr, 1, 1, rows, Tk, 1.f);
  softmax_dropout_bwd(ds1.data(), nullptr, g.data(), p1.data(), nullptr, rows, Tk, d);
  EXPECT_EQ(ds1, ds0);
  SoftmaxDropout bad = d;
  bad.keep = nullptr;
  EXPECT_THROW(softmax_dropout_fwd(p1.data(), d1.data(), nullptr, s.data(), nullptr, rows, Tk, ScoreRead{}, kMaskLowestF32, bad, true),
               Error);
  bad = d;
  bad.p = 0.f;
  EXPECT_THROW(softmax_dropout_bwd(ds1.data(), nullptr, g.data(), p1.data(), nullptr, rows, Tk, bad), Error);
}

TEST(SoftmaxRef, GradientMatchesFiniteDifferences) {
  for (Isa isa : {Isa::kRef, kernel_isa()}) {
    const int B = 1, H = 2, T = 5;
    const float scale = 0.4f;
    auto s = randn(size_t(B) * H * T * T, 11, 2.0f), R = randn(s.size(), 12);
    std::vector<int8_t> mask = {1, 1, 0, 1, 1};
    std::vector<float> p(s.size()), ds(s.size());
    const KernelTable& k = kernel_table(isa);
    k.softmax_fwd(p.data(), nullptr, s.data(), mask.data(), B, H, T, T, ScoreRead{scale}, kMaskLowestF32, nullptr, {});
    k.softmax_bwd(ds.data(), nullptr, R.data(), p.data(), mask.data(), B, H, T, T, scale, nullptr);
    // Double forward: L = sum(softmax(masked(s * scale)) * R).
    auto loss = [&](const std::vector<double>& sd) {
      double L = 0;
      for (int row = 0; row < H * T; ++row) {
        double mx = -1e300, sum = 0;
        std::vector<double> z(T);
        for (int c = 0; c < T; ++c) {
          z[c] = mask[c] ? sd[row * T + c] * static_cast<double>(scale) : -3.4028234663852886e38;
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
