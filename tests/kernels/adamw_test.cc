// AdamW vs torch (fixture from tools/kernels_adamw_fixture.py) and vs the formula written out;
// sum of squares and scaling for gradient clipping.
#include "cpuft/kernels/adamw.h"

#include <omp.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "kernel_test_util.h"

namespace cpuft::test {
namespace {

int64_t ulps(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if (ia < 0) ia = INT32_MIN - ia;
  if (ib < 0) ib = INT32_MIN - ib;
  return std::llabs(int64_t(ia) - int64_t(ib));
}

// The update written out in torch's order (docs/parity.md, Training): lerp_ and addcmul_ fused, as torch's CPU
// kernels do; every other operation rounded to f32.
void adamw_by_hand(std::vector<float>& w, std::vector<float>& m, std::vector<float>& v,
                   const std::vector<float>& g, const AdamWParams& p, int64_t t) {
  const double bc1 = 1 - std::pow(p.beta1, double(t)), bc2 = 1 - std::pow(p.beta2, double(t));
  for (size_t i = 0; i < w.size(); ++i) {
    if (p.weight_decay != 0) w[i] *= float(1 - p.lr * p.weight_decay);
    m[i] = std::fma(float(1 - p.beta1), g[i] - m[i], m[i]);
    v[i] = std::fma(float(1 - p.beta2) * g[i], g[i], v[i] * float(p.beta2));
    float den = std::sqrt(v[i]) / float(std::sqrt(bc2)) + float(p.eps);
    w[i] = w[i] + (float(-(p.lr / bc1)) * m[i]) / den;
  }
}

std::vector<float> vec_of(const nlohmann::json& j) { return j.get<std::vector<float>>(); }

TEST(AdamW, MatchesTorchFixture) {
  std::ifstream in(CPUFT_FIXTURES "/kernels/adamw_torch.json");
  ASSERT_TRUE(in) << "missing fixture";
  nlohmann::json fx = nlohmann::json::parse(in);
  for (Isa isa : {Isa::kRef, Isa::kAvx2, Isa::kAvx512}) {
    const KernelTable* k;
    try {
      k = &kernel_table(isa);
    } catch (const Error&) {
      std::printf("[ SKIPPED  ] %s not supported here\n", isa_name(isa));
      continue;
    }
    std::vector<float> w = vec_of(fx["w0"]), m(w.size(), 0.0f), v(w.size(), 0.0f);
    AdamWParams p;
    p.beta1 = fx["beta1"];
    p.beta2 = fx["beta2"];
    p.eps = fx["eps"];
    p.weight_decay = fx["weight_decay"];
    int64_t t = 0, worst_w = 0;
    for (const auto& st : fx["steps"]) {
      p.lr = st["lr"];
      std::vector<float> g = vec_of(st["grad"]);
      k->adamw_step(w.data(), m.data(), v.data(), nullptr, g.data(), int64_t(w.size()), p, ++t);
      EXPECT_EQ(m, vec_of(st["m"])) << k->name << " step " << t;
      EXPECT_EQ(v, vec_of(st["v"])) << k->name << " step " << t;
      std::vector<float> tw = vec_of(st["w"]);
      for (size_t i = 0; i < w.size(); ++i) worst_w = std::max(worst_w, ulps(w[i], tw[i]));
    }
    std::printf("[ MEASURED ] adamw %s vs torch %s: m, v exact, w max %lld ulp\n", k->name,
                fx["torch"].get<std::string>().c_str(), static_cast<long long>(worst_w));
    EXPECT_LE(worst_w, 2);
  }
}

class AdamWIsa : public IsaTest {};

// The clip coefficient and the zeroing inside the update give what scaling the gradients in place
// first (scale_inplace, clip_grad_norm_'s pass) gives, bit for bit, and leave the gradients at 0.
TEST_P(AdamWIsa, GradScaleAndZeroingAreTheSeparatePasses) {
  for (int64_t n : flat_lengths()) {
    for (const KernelTable* k : {&ref(), &vec()}) {
      const auto w0 = randn(n, 1, 0.05f), g0 = randn(n, 2, 3.0f);
      std::vector<float> w1 = w0, w2 = w0, m1(n, 0.01f), m2 = m1, v1(n, 0.02f), v2 = v1, g1 = g0, g2 = g0;
      AdamWParams p;
      p.lr = 1e-3;
      p.weight_decay = 0.01;
      const float coef = 0.37109375f * 1.1f;
      k->scale_inplace(g1.data(), n, coef);
      k->adamw_step(w1.data(), m1.data(), v1.data(), nullptr, g1.data(), n, p, 3);
      EXPECT_EQ(g1, [&] {  // read only without zero_grad
        std::vector<float> scaled = g0;
        k->scale_inplace(scaled.data(), n, coef);
        return scaled;
      }()) << k->name;
      p.grad_scale = coef;
      p.zero_grad = true;
      k->adamw_step(w2.data(), m2.data(), v2.data(), nullptr, g2.data(), n, p, 3);
      EXPECT_EQ(w2, w1) << k->name << " n=" << n;
      EXPECT_EQ(m2, m1) << k->name << " n=" << n;
      EXPECT_EQ(v2, v1) << k->name << " n=" << n;
      EXPECT_EQ(g2, std::vector<float>(n, 0.0f)) << k->name << " n=" << n;
    }
  }
}

TEST_P(AdamWIsa, VectorAndReferenceEqualTheFormulaBitForBit) {
  for (int64_t n : flat_lengths()) {
    auto w0 = randn(n, 1, 0.05f);
    AdamWParams p;
    p.weight_decay = n % 2 ? 0.01 : 0.0;
    std::vector<float> w1 = w0, w2 = w0, w3 = w0, m1(n), m2(n), m3(n), v1(n), v2(n), v3(n);
    std::vector<uint16_t> bf(n);
    for (int64_t t = 1; t <= 3; ++t) {
      auto g = randn(n, 10 + uint32_t(t), 0.1f);
      p.lr = 5e-5 * (1.0 - 0.1 * t);
      ref().adamw_step(w1.data(), m1.data(), v1.data(), nullptr, g.data(), n, p, t);
      vec().adamw_step(w2.data(), m2.data(), v2.data(), bf.data(), g.data(), n, p, t);
      adamw_by_hand(w3, m3, v3, g, p, t);
    }
    EXPECT_EQ(w1, w3) << n;
    EXPECT_EQ(m1, m3) << n;
    EXPECT_EQ(v1, v3) << n;
    EXPECT_EQ(w2, w1) << n;
    EXPECT_EQ(m2, m1) << n;
    EXPECT_EQ(v2, v1) << n;
    for (int64_t i = 0; i < n; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &w2[i], 4);
      ASSERT_EQ(bf[i], (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
    }
  }
}

TEST_P(AdamWIsa, BlockSumsOfSquaresMatchReference) {
  for (int64_t n : flat_lengths()) {
    auto x = randn(n, 3, 2.0f);
    const int64_t blocks = (n + kSumSquaresBlock - 1) / kSumSquaresBlock;
    std::vector<double> a(blocks), b(blocks);
    ref().block_sum_squares(a.data(), x.data(), n);
    vec().block_sum_squares(b.data(), x.data(), n);
    for (int64_t i = 0; i < blocks; ++i) EXPECT_NEAR(a[i], b[i], 1e-14 * a[i]) << n;
  }
}

CPUFT_INSTANTIATE_ISA_TEST(AdamWIsa);

TEST(GradNorm, SumOfSquaresIsAccurateAndThreadIndependent) {
  const int64_t n = 1000003;
  auto x = randn(n, 4, 0.01f);
  long double want = 0;
  for (float v : x) want += static_cast<long double>(v) * v;
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  double one = sum_squares(x.data(), n);
  omp_set_num_threads(3);
  double three = sum_squares(x.data(), n);
  omp_set_num_threads(threads);
  EXPECT_EQ(one, three);
  EXPECT_NEAR(one, static_cast<double>(want), 1e-13 * static_cast<double>(want));
  EXPECT_EQ(sum_squares(x.data(), 0), 0.0);
}

TEST(GradNorm, ScaleMultipliesEveryElement) {
  auto x = randn(1001, 5);
  auto y = x;
  scale_inplace(y.data(), 1001, 0.37f);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], x[i] * 0.37f);
}

}  // namespace
}  // namespace cpuft::test
