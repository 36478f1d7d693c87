// Residual + LayerNorm: vector vs reference on tails, gradients vs finite differences in double.
#include "cpuft/kernels/layernorm.h"

#include "cpuft/tensor/bf16.h"
#include "kernel_test_util.h"

namespace cpuft::test {
namespace {

constexpr float kEps = 1e-12f;

class LayerNorm : public IsaTest {};

TEST_P(LayerNorm, VectorMatchesReferenceOnTails) {
  for (int C : tail_widths()) {
    for (int N = 1; N <= 5; ++N) {
      const size_t n = size_t(N) * C;
      auto a = randn(n, 1, 2.0f, 0.5f), r = randn(n, 2), w = randn(C, 3, 0.2f, 1.0f),
           b = randn(C, 4, 0.1f);
      std::vector<float> o1(n), o2(n), m1(N), m2(N), s1(N), s2(N), x1(n), x2(n);
      std::vector<uint16_t> h1(n), h2(n);
      ref().layernorm_fwd(o1.data(), h1.data(), m1.data(), s1.data(), x1.data(), a.data(), nullptr, r.data(), w.data(),
                          b.data(), N, C, kEps);
      vec().layernorm_fwd(o2.data(), h2.data(), m2.data(), s2.data(), x2.data(), a.data(), nullptr, r.data(), w.data(),
                          b.data(), N, C, kEps);
      EXPECT_EQ(x1, x2);
      EXPECT_LT(max_rel_err(o2, o1, 1.0), 2e-5) << "C=" << C << " N=" << N;
      EXPECT_LT(max_rel_err(m2, m1, 1.0), 1e-6);
      EXPECT_LT(max_rel_err(s2, s1), 2e-5) << "C=" << C;
      auto dout = randn(n, 5);
      std::vector<float> dx1(n), dx2(n), dw1(C, 1.0f), dw2(C, 1.0f), db1(C, 1.0f), db2(C, 1.0f);
      ref().layernorm_bwd(dx1.data(), dw1.data(), db1.data(), dout.data(), x1.data(), m1.data(),
                          s1.data(), w.data(), N, C);
      vec().layernorm_bwd(dx2.data(), dw2.data(), db2.data(), dout.data(), x1.data(), m1.data(),
                          s1.data(), w.data(), N, C);
      if (C == 1) {
        // One channel: the output is the constant b, so dx is exactly 0 (an absolute check: a
        // relative one would divide by rounding noise).
        for (size_t i = 0; i < n; ++i) {
          EXPECT_EQ(dx1[i], 0.0f) << "ref N=" << N;
          EXPECT_EQ(dx2[i], 0.0f) << "vec N=" << N;
        }
      } else {
        EXPECT_LT(max_rel_err(dx2, dx1, max_abs(dx1)), 2e-5) << "C=" << C << " N=" << N;
      }
      EXPECT_LT(max_rel_err(dw2, dw1, 1.0), 2e-5);
      EXPECT_LT(max_rel_err(db2, db1, 1.0), 2e-6);
    }
  }
}

TEST_P(LayerNorm, InPlaceResidualAndBf16CopyAgree) {
  const int N = 3, C = 769;
  auto a = randn(size_t(N) * C, 8), r = randn(size_t(N) * C, 9), w = randn(C, 10),
       b = randn(C, 11);
  std::vector<float> out(a.size()), x(a.size()), m(N), s(N);
  std::vector<uint16_t> bf(a.size());
  vec().layernorm_fwd(out.data(), nullptr, m.data(), s.data(), x.data(), a.data(), nullptr, r.data(), w.data(),
                      b.data(), N, C, kEps);
  std::vector<float> out2(a.size());
  vec().layernorm_fwd(out2.data(), bf.data(), nullptr, nullptr, a.data(), a.data(), nullptr, r.data(), w.data(),
                      b.data(), N, C, kEps);  // x_sum aliases a
  EXPECT_EQ(out, out2);
  EXPECT_EQ(a, x);
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &out[i], 4);
    uint32_t want = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
    ASSERT_EQ(bf[i], want) << i;
  }
}

// a as bf16 (a bf16 product's output): the bits of the f32 a that holds the same values, with or without
// the residual and the kept sum.
TEST_P(LayerNorm, Bf16InputGivesWhatItsValuesGive) {
  for (int C : tail_widths()) {
    const int N = 3;
    const size_t n = size_t(N) * C;
    auto a = randn(n, 41, 2.0f, 0.5f), r = randn(n, 42), w = randn(C, 43, 0.2f, 1.0f), b = randn(C, 44, 0.1f);
    std::vector<uint16_t> a16(n);
    for (size_t i = 0; i < n; ++i) {
      a16[i] = f32_to_bf16(a[i]);
      a[i] = bf16_to_f32(a16[i]);
    }
    for (const KernelTable* k : {&ref(), &vec()}) {
      for (bool residual : {false, true}) {
        for (bool keep_sum : {false, true}) {
          const float* rp = residual ? r.data() : nullptr;
          std::vector<float> o1(n), o2(n), m1(N), m2(N), s1(N), s2(N), x1(n), x2(n, -1.0f);
          std::vector<uint16_t> h1(n), h2(n);
          k->layernorm_fwd(o1.data(), h1.data(), m1.data(), s1.data(), keep_sum ? x1.data() : nullptr, a.data(),
                           nullptr, rp, w.data(), b.data(), N, C, kEps);
          k->layernorm_fwd(o2.data(), h2.data(), m2.data(), s2.data(), keep_sum ? x2.data() : nullptr, nullptr,
                           a16.data(), rp, w.data(), b.data(), N, C, kEps);
          const std::string where = std::string(k->name) + " C=" + std::to_string(C) + (residual ? " residual" : "") +
                                    (keep_sum ? " sum kept" : "");
          EXPECT_EQ(o1, o2) << where;
          EXPECT_EQ(h1, h2) << where;
          EXPECT_EQ(m1, m2) << where;
          EXPECT_EQ(s1, s2) << where;
          if (keep_sum) {
            EXPECT_EQ(x1, x2) << where;
          }
        }
      }
    }
  }
}

CPUFT_INSTANTIATE_ISA_TEST(LayerNorm);

// Double-precision forward for finite differences: L = sum(out * R).
double ln_loss(const std::vector<double>& x, const std::vector<double>& w,
               const std::vector<double>& b, const std::vector<double>& R, int N, int C) {
  double L = 0;
  for (int n = 0; n < N; ++n) {
    double mu = 0, var = 0;
    for (int c = 0; c < C; ++c) mu += x[n * C + c];
    mu /= C;
    for (int c = 0; c < C; ++c) var += (x[n * C + c] - mu) * (x[n * C + c] - mu);
    double rs = 1.0 / std::sqrt(var / C + 1e-12);
    for (int c = 0; c < C; ++c) L += ((x[n * C + c] - mu) * rs * w[c] + b[c]) * R[n * C + c];
  }
  return L;
}

TEST(LayerNormRef, GradientsMatchFiniteDifferences) {
  for (Isa isa : {Isa::kRef, kernel_isa()}) {
    const int N = 3, C = 7;
    auto a = randn(N * C, 21, 1.5f), w = randn(C, 22, 0.3f, 1.0f), b = randn(C, 23),
         R = randn(N * C, 24);
    std::vector<float> out(N * C), m(N), s(N), dx(N * C), dw(C, 0.0f), db(C, 0.0f);
    const KernelTable& k = kernel_table(isa);
    k.layernorm_fwd(out.data(), nullptr, m.data(), s.data(), nullptr, a.data(), nullptr, nullptr, w.data(), b.data(), N,
                    C, kEps);
    k.layernorm_bwd(dx.data(), dw.data(), db.data(), R.data(), a.data(), m.data(), s.data(),
                    w.data(), N, C);
    std::vector<double> xd(a.begin(), a.end()), wd(w.begin(), w.end()), bd(b.begin(), b.end()),
        Rd(R.begin(), R.end());
    const double h = 1e-6;
    auto fd = [&](std::vector<double>& v, size_t i) {
      double keep = v[i];
      v[i] = keep + h;
      double lp = ln_loss(xd, wd, bd, Rd, N, C);
      v[i] = keep - h;
      double lm = ln_loss(xd, wd, bd, Rd, N, C);
      v[i] = keep;
      return (lp - lm) / (2 * h);
    };
    double worst = 0;
    for (size_t i = 0; i < xd.size(); ++i) worst = std::max(worst, std::fabs(fd(xd, i) - dx[i]));
    for (int c = 0; c < C; ++c) {
      worst = std::max(worst, std::fabs(fd(wd, c) - dw[c]));
      worst = std::max(worst, std::fabs(fd(bd, c) - db[c]));
    }
    std::printf("[ MEASURED ] layernorm %s max |grad - fd| %.3g\n", isa_name(isa), worst);
    EXPECT_LT(worst, 2e-5);
  }
}

TEST(LayerNormRef, ParameterGradientsAccumulateAndDxMayAliasDout) {
  const int N = 2, C = 5;
  auto a = randn(N * C, 31), w = randn(C, 32), b = randn(C, 33), d = randn(N * C, 34);
  std::vector<float> out(N * C), m(N), s(N), dx(N * C), dw(C, 0.0f), db(C, 0.0f);
  layernorm_fwd(out.data(), nullptr, m.data(), s.data(), nullptr, a.data(), nullptr, nullptr, w.data(), b.data(), N, C,
                kEps);
  layernorm_bwd(dx.data(), dw.data(), db.data(), d.data(), a.data(), m.data(), s.data(), w.data(),
                N, C);
  std::vector<float> dw2 = dw, db2 = db, d2 = d;
  layernorm_bwd(d2.data(), dw2.data(), db2.data(), d2.data(), a.data(), m.data(), s.data(),
                w.data(), N, C);
  EXPECT_EQ(d2, dx);
  for (int c = 0; c < C; ++c) {
    EXPECT_FLOAT_EQ(dw2[c], 2 * dw[c]);
    EXPECT_FLOAT_EQ(db2[c], 2 * db[c]);
  }
}

}  // namespace
}  // namespace cpuft::test
