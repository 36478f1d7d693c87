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
#include "cpuft/kernels/vec_loop.h"
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

// Shapes every vector-vs-reference test covers: 1 to 33 elements (each tail of 1 to 15 lanes of an
// AVX-512 vector and 1 to 7 of an AVX2 one, after 0, 1 and 2 whole vectors; each partial load and
// store mask), then 768 (DistilBERT's hidden size: whole vectors only) and 769.
inline const std::vector<int>& tail_widths() {
  static const std::vector<int> widths = [] {
    std::vector<int> w;
    for (int n = 1; n <= 33; ++n) w.push_back(n);
    w.push_back(768);
    w.push_back(769);
    return w;
  }();
  return widths;
}

// Lengths of the flat elementwise kernels (dropout, AdamW, the sums of squares): the tail widths above,
// a block of the sums of squares (kSumSquaresBlock) and a chunk of the threads' shared loop (kFlatChunk),
// each one short, exact and one past, and 70001 (several chunks, a tail of 1 lane in the last).
inline const std::vector<int64_t>& flat_lengths() {
  static const std::vector<int64_t> lengths = [] {
    std::vector<int64_t> n(tail_widths().begin(), tail_widths().end());
    for (int64_t more : {kSumSquaresBlock - 1, kSumSquaresBlock, kSumSquaresBlock + 1, kFlatChunk - 1, kFlatChunk,
                         kFlatChunk + 1, int64_t{70001}})
      n.push_back(more);
    return n;
  }();
  return lengths;
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
