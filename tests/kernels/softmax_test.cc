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

// The backward of k's softmax over `rows` rows of Tk scores under one key mask: the forward's row
// statistics from k's softmax_fwd, then k's softmax_recompute_bwd over a copy of the scores (which it
// overwrites with the probabilities): ds (f32) and its bf16 copy.
struct Backward {
  std::vector<float> p, ds;
  std::vector<uint16_t> ds16;
};
Backward softmax_backward(const KernelTable& k, const std::vector<float>& s, const int8_t* mask, int rows, int Tk,
                          ScoreRead read, const std::vector<float>& dp, const DropoutPass* drop = nullptr,
                          float mask_value = kMaskLowestF32) {
  const size_t n = size_t(rows) * Tk;
  std::vector<float> stats(size_t(2) * rows), probs(n);
  k.softmax_fwd(probs.data(), nullptr, s.data(), mask, 1, 1, rows, Tk, read, mask_value, nullptr, stats.data());
  Backward b{s, std::vector<float>(n), std::vector<uint16_t>(n)};
  k.softmax_recompute_bwd(b.ds.data(), b.ds16.data(), nullptr, nullptr, b.p.data(), dp.data(), mask, rows, Tk, read,
                          mask_value, stats.data(), drop);
  return b;
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
        ref().softmax_fwd(p1.data(), nullptr, s.data(), mask.data(), B, H, T, T, read, kMaskLowestF32, nullptr,
                          nullptr);
        vec().softmax_fwd(p2.data(), h2.data(), s.data(), mask.data(), B, H, T, T, read, kMaskLowestF32, nullptr,
                          nullptr);
        // The reference sums a row sequentially in f32 (error growing with T), the vector
        // kernel in W lanes: 5e-6 relative covers T = 769.
        EXPECT_LT(max_rel_err(p2, p1, 1e-3), 5e-6) << "T=" << T << " H=" << H;
        // The backward (B = 1: one key mask for all rows), each kernel from its own forward's statistics:
        // the probabilities it writes are its forward's, bit for bit.
        auto dp = randn(n, 3);
        const Backward b1 = softmax_backward(ref(), s, mask.data(), H * T, T, read, dp);
        const Backward b2 = softmax_backward(vec(), s, mask.data(), H * T, T, read, dp);
        EXPECT_EQ(b1.p, p1) << "T=" << T;
        EXPECT_EQ(b2.p, p2) << "T=" << T;
        // Each from its own probabilities, which differ as above: 5e-6 of the largest gradient.
        EXPECT_LT(max_rel_err(b2.ds, b1.ds, max_abs(b1.ds) + 1e-30), 5e-6) << "T=" << T;
        // The bf16 copy is the rounded gradient, with or without the f32 one.
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(b2.ds16[i], f32_to_bf16(b2.ds[i])) << "T=" << T << " at " << i;
        std::vector<float> stats(size_t(2) * H * T), again = s;
        std::vector<uint16_t> only(n);
        vec().softmax_fwd(p2.data(), nullptr, s.data(), mask.data(), 1, 1, H * T, T, read, kMaskLowestF32, nullptr,
                          stats.data());
        vec().softmax_recompute_bwd(nullptr, only.data(), nullptr, nullptr, again.data(), dp.data(), mask.data(), H * T,
                                    T, read, kMaskLowestF32, stats.data(), nullptr);
        EXPECT_EQ(only, b2.ds16);
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
    vec().softmax_fwd(p.data(), nullptr, s.data(), mask.data(), B, H, T, T, ScoreRead{}, lowest, nullptr, nullptr);
    for (int i = 0; i < H * T * T; ++i) ASSERT_FLOAT_EQ(p[i], 1.0f / T) << i;
    for (int row = H * T; row < 2 * H * T; ++row) {
      EXPECT_EQ(p[size_t(row) * T + 3], 0.0f);
      double sum = 0;
      for (int c = 0; c < T; ++c) sum += p[size_t(row) * T + c];
      EXPECT_NEAR(sum, 1.0, 1e-6);
    }
    // The backward, a batch (one key mask) at a time.
    const size_t per_batch = size_t(H) * T * T;
    for (int b = 0; b < B; ++b) {
      const std::vector<float> sb(s.begin() + b * per_batch, s.begin() + (b + 1) * per_batch);
      const Backward g =
          softmax_backward(vec(), sb, mask.data() + b * T, H * T, T, ScoreRead{}, randn(per_batch, 6), nullptr, lowest);
      EXPECT_EQ(g.p, std::vector<float>(p.begin() + b * per_batch, p.begin() + (b + 1) * per_batch));
      if (b == 0)
        for (size_t i = 0; i < per_batch; ++i) ASSERT_EQ(g.ds[i], 0.0f);  // masked_fill blocks gradient
      else
        for (int row = 0; row < H * T; ++row) EXPECT_EQ(g.ds[size_t(row) * T + 3], 0.0f);
    }
  }
}

TEST_P(Softmax, InPlaceAndBf16CopyAgree) {
  const int B = 1, H = 3, T = 37;
  auto s = randn(size_t(B) * H * T * T, 7);
  std::vector<float> p(s.size());
  std::vector<uint16_t> bf(s.size());
  vec().softmax_fwd(p.data(), bf.data(), s.data(), nullptr, B, H, T, T, ScoreRead{0.125f}, kMaskLowestF32, nullptr,
                    nullptr);
  vec().softmax_fwd(s.data(), nullptr, s.data(), nullptr, B, H, T, T, ScoreRead{0.125f}, kMaskLowestF32, nullptr,
                    nullptr);
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
                     kMaskLowestF32, drop ? &pass : nullptr, nullptr);
      k->softmax_fwd(p_before.data(), b_before.data(), rounded.data(), mask.data(), 1, 1, rows, Tk, ScoreRead{},
                     kMaskLowestF32, drop ? &pass : nullptr, nullptr);
      EXPECT_EQ(p_read, p_before) << (k == &ref() ? "ref" : "vec") << " dropout " << drop;
      EXPECT_EQ(b_read, b_before) << (k == &ref() ? "ref" : "vec") << " dropout " << drop;
    }
  // Read without rounding, the scores are only scaled: another softmax.
  std::vector<float> p_scaled(n), p_rounded(n);
  vec().softmax_fwd(p_scaled.data(), nullptr, s.data(), mask.data(), 1, 1, rows, Tk, ScoreRead{0.125f}, kMaskLowestF32,
                    nullptr, nullptr);
  vec().softmax_fwd(p_rounded.data(), nullptr, s.data(), mask.data(), 1, 1, rows, Tk, ScoreRead{0.125f, true},
                    kMaskLowestF32, nullptr, nullptr);
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
  vec().softmax_fwd(p.data(), nullptr, s.data(), mask.data(), B, H, T, T, ScoreRead{0.5f}, kMaskLowestF32, nullptr,
                    nullptr);
  vec().softmax_fwd(pc.data(), nullptr, sc.data(), mask_cut.data(), B, H, T, Tk, ScoreRead{0.5f}, kMaskLowestF32,
                    nullptr, nullptr);
  ref().softmax_fwd(pr.data(), nullptr, sc.data(), mask_cut.data(), B, H, T, Tk, ScoreRead{0.5f}, kMaskLowestF32,
                    nullptr, nullptr);
  EXPECT_LT(max_rel_err(pc, pr, 1e-3), 5e-6);
  // The backward, a batch (one key mask) at a time.
  for (int b = 0; b < B; ++b) {
    const size_t rows = size_t(H) * T;
    auto part = [&](const std::vector<float>& x, int width) {
      return std::vector<float>(x.begin() + b * rows * width, x.begin() + (b + 1) * rows * width);
    };
    const Backward g = softmax_backward(vec(), part(s, T), mask.data() + b * T, H * T, T, ScoreRead{0.5f}, part(dp, T));
    const Backward gc =
        softmax_backward(vec(), part(sc, Tk), mask_cut.data() + b * Tk, H * T, Tk, ScoreRead{0.5f}, part(dpc, Tk));
    std::copy(g.ds.begin(), g.ds.end(), ds.begin() + b * rows * T);
    std::copy(gc.ds.begin(), gc.ds.end(), dsc.begin() + b * rows * Tk);
  }
  for (size_t row = 0; row < size_t(B) * H * T; ++row) {
    for (int c = 0; c < Tk; ++c) {
      ASSERT_NEAR(pc[row * Tk + c], p[row * T + c], 1e-6f) << row << "," << c;
      ASSERT_NEAR(dsc[row * Tk + c], ds[row * T + c], 1e-6f) << row << "," << c;
    }
    for (int c = Tk; c < T; ++c) ASSERT_EQ(p[row * T + c], 0.0f);
  }
}

// The dropout in the softmax's passes gives softmax_fwd then dropout_fwd bit for bit, with the mask
// index of each element over the rows back to back from first_index; the bits written are that mask,
// row by row. The backward applying them gives dropout_bwd then the backward without a dropout, and
// the dropped probabilities again, bit for bit.
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
      std::vector<float> p0(n), d32(n), ddp(n);
      std::vector<uint16_t> d16(n);
      k->softmax_fwd(p0.data(), nullptr, s.data(), mask.data(), 1, 1, rows, Tk, ScoreRead{}, kMaskLowestF32, nullptr,
                     nullptr);
      dropout_fwd(d32.data(), d16.data(), p0.data(), n, p, seed, stream, first);
      dropout_bwd(ddp.data(), nullptr, ddrop.data(), n, p, seed, stream, first);
      const Backward want = softmax_backward(*k, s, mask.data(), rows, Tk, ScoreRead{}, ddp);

      std::vector<uint8_t> keep(static_cast<size_t>(rows * row_bytes), 0xa5);
      DropoutPass pass;
      pass.scale = 1.0f / (1.0f - p);
      pass.key = dropout_key_at(seed, stream, first);
      pass.threshold24 = dropout_threshold24(p);
      pass.keep = keep.data();
      pass.row_bytes = row_bytes;
      pass.draw = true;
      std::vector<float> p1(n), o32(n), stats(size_t(2) * rows);
      std::vector<uint16_t> o16(n);
      pass.out = o32.data();
      pass.out_bf16 = o16.data();
      k->softmax_fwd(p1.data(), nullptr, s.data(), mask.data(), 1, 1, rows, Tk, ScoreRead{}, kMaskLowestF32, &pass,
                     stats.data());
      EXPECT_EQ(p1, p0) << what;
      EXPECT_EQ(o32, d32) << what;
      EXPECT_EQ(o16, d16) << what;
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < (Tk + 7) / 8 * 8; ++c) {
          const int bit = (keep[static_cast<size_t>(r * row_bytes + c / 8)] >> (c % 8)) & 1;
          ASSERT_EQ(bit, c < Tk && dropout_keep(seed, stream, first + uint64_t(r) * Tk + c, p) ? 1 : 0)
              << what << " row " << r << " col " << c;
        }
      // The backward with the kept bits.
      pass.draw = false;
      pass.out = nullptr;
      pass.out_bf16 = nullptr;
      std::vector<float> scores = s, b32(n), ds(n);
      std::vector<uint16_t> b16(n), ds16(n);
      k->softmax_recompute_bwd(ds.data(), ds16.data(), b32.data(), b16.data(), scores.data(), ddrop.data(), mask.data(),
                               rows, Tk, ScoreRead{}, kMaskLowestF32, stats.data(), &pass);
      EXPECT_EQ(scores, p0) << what;
      EXPECT_EQ(b32, d32) << what;
      EXPECT_EQ(b16, d16) << what;
      EXPECT_EQ(ds, want.ds) << what;
      EXPECT_EQ(ds16, want.ds16) << what;
    }
  }
}

// The backward computes the probabilities from the row statistics it is given, not its own: statistics
// that are not the row's give other probabilities (here twice the 1 / sum: twice the probabilities).
TEST_P(Softmax, BackwardReadsTheForwardsRowStatistics) {
  const int rows = 4, Tk = 33;
  const int64_t n = int64_t(rows) * Tk;
  const auto s = randn(n, 13, 2.0f), dp = randn(n, 14);
  std::vector<float> p(n), stats(size_t(2) * rows);
  vec().softmax_fwd(p.data(), nullptr, s.data(), nullptr, 1, 1, rows, Tk, ScoreRead{}, kMaskLowestF32, nullptr,
                    stats.data());
  for (int r = 0; r < rows; ++r) stats[size_t(2 * r + 1)] *= 2.0f;
  for (const KernelTable* k : {&ref(), &vec()}) {
    std::vector<float> scores = s, ds(n);
    k->softmax_recompute_bwd(ds.data(), nullptr, nullptr, nullptr, scores.data(), dp.data(), nullptr, rows, Tk,
                             ScoreRead{}, kMaskLowestF32, stats.data(), nullptr);
    for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(scores[i], 2.0f * p[i], 1e-6f) << k->name << " at " << i;
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
  std::vector<float> p0(n), d0(n), p1(n), d1(n), g0(n), stats(size_t(2) * rows);
  softmax_fwd(p0.data(), nullptr, s.data(), nullptr, 1, 1, rows, Tk, ScoreRead{}, kMaskLowestF32);
  dropout_fwd(d0.data(), nullptr, p0.data(), n, 0.1f, 3, 4, 77);
  softmax_dropout_fwd(p1.data(), d1.data(), nullptr, s.data(), nullptr, rows, Tk, ScoreRead{}, kMaskLowestF32, d,
                      stats.data());
  EXPECT_EQ(p1, p0);
  EXPECT_EQ(d1, d0);
  dropout_bwd(g0.data(), nullptr, g.data(), n, 0.1f, 3, 4, 77);
  std::vector<float> s0 = s, s1 = s, ds0(n), ds1(n), dropped(n);
  softmax_recompute_bwd(ds0.data(), nullptr, nullptr, nullptr, s0.data(), g0.data(), nullptr, rows, Tk, ScoreRead{},
                        kMaskLowestF32, stats.data(), nullptr);
  softmax_recompute_bwd(ds1.data(), nullptr, dropped.data(), nullptr, s1.data(), g.data(), nullptr, rows, Tk,
                        ScoreRead{}, kMaskLowestF32, stats.data(), &d);
  EXPECT_EQ(s1, p0);
  EXPECT_EQ(dropped, d0);
  EXPECT_EQ(ds1, ds0);
  SoftmaxDropout bad = d;
  bad.keep = nullptr;
  EXPECT_THROW(
      softmax_dropout_fwd(p1.data(), d1.data(), nullptr, s.data(), nullptr, rows, Tk, ScoreRead{}, kMaskLowestF32, bad),
      Error);
  bad = d;
  bad.p = 0.f;
  EXPECT_THROW(softmax_recompute_bwd(ds1.data(), nullptr, nullptr, nullptr, s1.data(), g.data(), nullptr, rows, Tk,
                                     ScoreRead{}, kMaskLowestF32, stats.data(), &bad),
               Error);
  EXPECT_THROW(softmax_recompute_bwd(ds1.data(), nullptr, nullptr, nullptr, s1.data(), g.data(), nullptr, rows, Tk,
                                     ScoreRead{}, kMaskLowestF32, nullptr, &d),
               Error);
}

TEST(SoftmaxRef, GradientMatchesFiniteDifferences) {
  for (Isa isa : {Isa::kRef, kernel_isa()}) {
    const int B = 1, H = 2, T = 5;
    const float scale = 0.4f;
    auto s = randn(size_t(B) * H * T * T, 11, 2.0f), R = randn(s.size(), 12);
    std::vector<int8_t> mask = {1, 1, 0, 1, 1};
    // The backward's gradient is the read scores' (s * scale): times scale, the raw scores'.
    Backward g = softmax_backward(kernel_table(isa), s, mask.data(), H * T, T, ScoreRead{scale}, R);
    std::vector<float> ds = g.ds;
    for (float& x : ds) x *= scale;
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
