// QA cross-entropy: value vs a double computation, ignored rows, all-ignored NaN, gradient.
#include "cpuft/kernels/cross_entropy.h"

#include "kernel_test_util.h"

namespace cpuft::test {
namespace {

// Mean CE of one head in double (channel ch of (B,T,2)), over rows whose clamped label != T.
double ce_double(const std::vector<double>& z, const std::vector<int32_t>& y, int B, int T,
                 int ch) {
  double total = 0;
  int n = 0;
  for (int b = 0; b < B; ++b) {
    int lab = std::min(std::max(y[b], 0), T);
    if (lab == T) continue;
    double mx = -1e300, sum = 0;
    for (int t = 0; t < T; ++t) mx = std::max(mx, z[(b * T + t) * 2 + ch]);
    for (int t = 0; t < T; ++t) sum += std::exp(z[(b * T + t) * 2 + ch] - mx);
    total += mx + std::log(sum) - z[(b * T + lab) * 2 + ch];
    ++n;
  }
  return total / n;
}

TEST(QaCrossEntropy, LossAndGradientMatchDoubleReference) {
  const int B = 4, T = 9;
  auto logits = randn(size_t(B) * T * 2, 1, 3.0f);
  // Start labels: one beyond T (clamped to T: ignored), one negative (clamped to 0).
  std::vector<int32_t> sp = {2, 40, -3, 8}, ep = {3, 4, 9, 0};
  std::vector<float> d(logits.size());
  QaLoss r = qa_cross_entropy(d.data(), logits.data(), sp.data(), ep.data(), B, T, 0.5f);
  EXPECT_EQ(r.n_start, 3);
  EXPECT_EQ(r.n_end, 3);
  std::vector<double> zd(logits.begin(), logits.end());
  auto loss = [&]() { return (ce_double(zd, sp, B, T, 0) + ce_double(zd, ep, B, T, 1)) / 2; };
  EXPECT_NEAR(r.loss, loss(), 1e-6 * std::fabs(loss()));
  EXPECT_NEAR(r.ce_start, ce_double(zd, sp, B, T, 0), 1e-5);
  double worst = 0;
  for (size_t i = 0; i < zd.size(); ++i) {
    const double h = 1e-6, keep = zd[i];
    zd[i] = keep + h;
    double lp = loss();
    zd[i] = keep - h;
    double lm = loss();
    zd[i] = keep;
    worst = std::max(worst, std::fabs(0.5 * (lp - lm) / (2 * h) - d[i]));  // grad_scale 0.5
  }
  std::printf("[ MEASURED ] qa cross-entropy max |grad - fd| %.3g\n", worst);
  EXPECT_LT(worst, 1e-6);
  for (int t = 0; t < T; ++t) EXPECT_EQ(d[(1 * T + t) * 2], 0.0f);  // ignored start row
}

TEST(QaCrossEntropy, AllRowsIgnoredGivesNaNAndZeroGradient) {
  const int B = 2, T = 4;
  auto logits = randn(size_t(B) * T * 2, 2);
  std::vector<int32_t> sp = {4, 100}, ep = {1, 2};
  std::vector<float> d(logits.size(), 7.0f);
  QaLoss r = qa_cross_entropy(d.data(), logits.data(), sp.data(), ep.data(), B, T, 1.0f);
  EXPECT_TRUE(std::isnan(r.ce_start));
  EXPECT_TRUE(std::isnan(r.loss));
  EXPECT_FALSE(std::isnan(r.ce_end));
  for (int i = 0; i < B * T; ++i) EXPECT_EQ(d[2 * i], 0.0f);
}

TEST(QaCrossEntropy, EvalNeedsNoGradientBuffer) {
  const int B = 1, T = 3;
  std::vector<float> logits = {0, 0, 0, 0, 0, 0};
  std::vector<int32_t> sp = {1}, ep = {2};
  QaLoss r = qa_cross_entropy(nullptr, logits.data(), sp.data(), ep.data(), B, T, 1.0f);
  EXPECT_NEAR(r.loss, std::log(3.0), 1e-6);  // uniform logits
}

}  // namespace
}  // namespace cpuft::test
