// The avx512_bf16 kernels' bf16 rounding (AVX512_BF16's conversion, kernels/vec_avx512_bf16.h) gives
// f32_to_bf16's bits for every value but the f32 denormals (ties, the largest values, NaNs, infinities),
// and a zero of the denormal's sign for those, which is what the bf16 products that read the kernels'
// outputs make of f32_to_bf16's denormal bf16 values (they read denormals as zero).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cpuft/cpu/isa.h"
#include "cpuft/tensor/bf16.h"
#include "kernels/vec_bf16_fns.h"

namespace cpuft {
namespace {

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Values that round in every way, each also with its sign flipped.
std::vector<float> special_values() {
  const uint32_t patterns[] = {
      0x00000000u, 0x00000001u, 0x00008000u, 0x00018000u, 0x007fffffu, 0x007f8000u,  // zero, denormals
      0x00800000u, 0x00808000u, 0x00818000u, 0x0080ffffu,                            // smallest normals, ties
      0x3f800000u, 0x3f808000u, 0x3f818000u, 0x3f807fffu, 0x3f80ffffu,               // ties to even, near ties
      0x7f7f0000u, 0x7f7f7fffu, 0x7f7f8000u, 0x7f7fffffu,                            // the largest (to inf)
      0x7f800000u, 0x7f800001u, 0x7fc00000u, 0x7fa01234u, 0x7fffffffu,               // inf, NaNs
  };
  std::vector<float> v;
  for (uint32_t p : patterns) {
    v.push_back(from_bits(p));
    v.push_back(from_bits(p | 0x80000000u));
  }
  return v;
}

void expect_bits_of_f32_to_bf16(const std::vector<float>& in, const char* what) {
  const int64_t n = static_cast<int64_t>(in.size());
  std::vector<uint16_t> got(in.size());
  std::vector<float> rounded(in.size());
  test::to_bf16_avx512_bf16(got.data(), in.data(), n);
  test::round_bf16_avx512_bf16(rounded.data(), in.data(), n);
  for (size_t i = 0; i < in.size(); ++i) {
    const bool denormal = std::fpclassify(in[i]) == FP_SUBNORMAL;
    const uint16_t want = denormal ? static_cast<uint16_t>((bits_of(in[i]) >> 16) & 0x8000u) : f32_to_bf16(in[i]);
    ASSERT_EQ(got[i], want) << what << ": element " << i << ", f32 bits 0x" << std::hex << bits_of(in[i]);
    ASSERT_EQ(bits_of(rounded[i]), static_cast<uint32_t>(want) << 16)
        << what << ": element " << i << ", f32 bits 0x" << std::hex << bits_of(in[i]);
  }
}

TEST(VecBf16, TheConversionGivesTheBitsOfF32ToBf16) {
  if (!isa_supported(Isa::kAvx512Bf16)) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  const std::vector<float> special = special_values();
  expect_bits_of_f32_to_bf16(special, "special values, denormals among them");
  // Vectors of normal values only, then each with one denormal lane among normal ones, and tails.
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> any;
  std::vector<float> normal;
  while (normal.size() < 4096 + 5) {
    const float f = from_bits(any(rng));
    if (std::isnormal(f)) normal.push_back(f);
  }
  expect_bits_of_f32_to_bf16(normal, "random normal values");
  for (size_t lane = 0; lane < 16; ++lane) {
    std::vector<float> one(normal.begin(), normal.begin() + 16);
    one[lane] = from_bits((lane % 2 ? 0x80018000u : 0x00018000u) + static_cast<uint32_t>(lane));
    expect_bits_of_f32_to_bf16(one, "a vector with one denormal lane");
  }
  for (int n : {1, 7, 15, 17, 31})
    expect_bits_of_f32_to_bf16(std::vector<float>(special.begin(), special.begin() + n), "a tail");
}

}  // namespace
}  // namespace cpuft
