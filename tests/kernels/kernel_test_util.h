// Helpers for the kernel tests: random data, ISA parameterisation, error measures.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cpuft/cpu/isa.h"
#include "cpuft/kernels/kernel_table.h"
#include "cpuft/util/error.h"

namespace cpuft::test {

inline std::vector<float> randn(size_t n, uint32_t seed, float scale = 1.0f, float shift = 0.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = shift + scale * dist(gen);
  return v;
}

// max |a - b| / max(|b|, floor) over all elements.
inline double max_rel_err(const std::vector<float>& a, const std::vector<float>& b,
                          double floor = 1e-30) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0.0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    double d = std::fabs(static_cast<double>(a[i]) - b[i]);
    worst = std::max(worst, d / std::max(std::fabs(static_cast<double>(b[i])), floor));
  }
  return worst;
}

inline double max_abs(const std::vector<float>& a) {
  double m = 0.0;
  for (float x : a) m = std::max(m, std::fabs(static_cast<double>(x)));
  return m;
}

// Shapes every vector-vs-reference test covers: full vectors, tails and single elements.
inline const std::vector<int>& tail_widths() {
  static const std::vector<int> widths = {768, 769, 1, 17};
  return widths;
}

// A test parameterised over the vector ISAs; skips (and says so) on CPUs that lack one.
class IsaTest : public ::testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    try {
      table_ = &kernel_table(GetParam());
    } catch (const Error& e) {
      GTEST_SKIP() << isa_name(GetParam()) << " not supported here: " << e.what();
    }
    std::printf("[ ISA      ] running %s kernels\n", table_->name);
  }
  const KernelTable& vec() const { return *table_; }
  const KernelTable& ref() const { return kernel_table(Isa::kRef); }

 private:
  const KernelTable* table_ = nullptr;
};

inline std::string isa_param_name(const ::testing::TestParamInfo<Isa>& info) {
  return isa_name(info.param);
}

#define CPUFT_INSTANTIATE_ISA_TEST(Suite)                                                             \
  INSTANTIATE_TEST_SUITE_P(Isa, Suite, ::testing::Values(Isa::kAvx2, Isa::kAvx512, Isa::kAvx512Bf16), \
                           ::cpuft::test::isa_param_name)

}  // namespace cpuft::test
