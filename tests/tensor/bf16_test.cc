#include "cpuft/tensor/bf16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpuft/cpu/isa.h"
#include "cpuft/tensor/bf16_paths.h"

namespace cpuft {
namespace {

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(Bf16, ScalarRoundsToNearestEven) {
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(f32_to_bf16(from_bits(0x3f808000)), 0x3f80);  // tie, even below: down
  EXPECT_EQ(f32_to_bf16(from_bits(0x3f818000)), 0x3f82);  // tie, odd below: up
  EXPECT_EQ(f32_to_bf16(from_bits(0x3f808001)), 0x3f81);  // just above the tie: up
  EXPECT_EQ(f32_to_bf16(from_bits(0x3f807fff)), 0x3f80);  // just below the tie: down
  EXPECT_EQ(f32_to_bf16(from_bits(0xbf818000)), 0xbf82);  // negative tie
  EXPECT_EQ(f32_to_bf16(from_bits(0x7f7fffff)), 0x7f80);  // FLT_MAX rounds to +inf
  EXPECT_EQ(f32_to_bf16(from_bits(0x7f7f7fff)), 0x7f7f);  // largest value that stays finite
}

TEST(Bf16, ScalarSpecialValues) {
  EXPECT_EQ(f32_to_bf16(0.0f), 0x0000);
  EXPECT_EQ(f32_to_bf16(-0.0f), 0x8000);
  EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(f32_to_bf16(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(f32_to_bf16(from_bits(0x7fc00000)), 0x7fc0);  // quiet NaN
  EXPECT_EQ(f32_to_bf16(from_bits(0xffc00000)), 0xffc0);  // negative NaN keeps its sign
  EXPECT_EQ(f32_to_bf16(from_bits(0x7f800001)), 0x7fc0);  // signalling NaN with low payload: quieted
  EXPECT_EQ(f32_to_bf16(from_bits(0x7fffffff)), 0x7fff);  // would overflow if rounded as an integer
  EXPECT_EQ(f32_to_bf16(from_bits(0x00000001)), 0x0000);  // smallest denormal rounds to zero
  EXPECT_EQ(f32_to_bf16(from_bits(0x00018000)), 0x0002);  // denormal tie, odd below: up (not flushed)
  EXPECT_EQ(f32_to_bf16(from_bits(0x007fffff)), 0x0080);  // largest denormal rounds to FLT_MIN
  EXPECT_EQ(f32_to_bf16(from_bits(0x80010000)), 0x8001);  // negative denormal kept exactly
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(std::nanf("")))));
  EXPECT_EQ(bf16_to_f32(0x3f80), 1.0f);
  EXPECT_EQ(bf16_to_f32(0xc040), -3.0f);
  EXPECT_EQ(round_to_bf16(from_bits(0x3f818000)), from_bits(0x3f820000));
}

// Inputs that exercise every rule: specials and ties scattered among random values (including
// denormals), so vector paths see them in every lane and in blocks that also hold normal numbers.
std::vector<float> tricky_inputs(int64_t n, uint32_t seed) {
  const uint32_t special[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
                              0xffc00000, 0x7f800001, 0xff812345, 0x7fffffff, 0x00000001,
                              0x00018000, 0x807fffff, 0x3f808000, 0x3f818000, 0x7f7fffff,
                              0xbf808001};
  std::mt19937 rng(seed);
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    uint32_t r = rng();
    switch (r % 4) {
      case 0: v[i] = from_bits(special[(r >> 8) % 16]); break;
      case 1: v[i] = from_bits(r); break;                 // any bit pattern
      case 2: v[i] = from_bits((r & 0x807fffff) | 0x3f000000 | ((r >> 8) & 1 ? 0 : 0x00008000)); break;
      default: v[i] = std::ldexp(static_cast<float>(r & 0xffff), -140); break;  // denormals
    }
  }
  return v;
}

struct Path {
  const char* name;
  void (*to_bf16)(const float*, uint16_t*, int64_t);
  void (*to_f32)(const uint16_t*, float*, int64_t);
  void (*round)(const float*, float*, int64_t);
  bool available;
};

std::vector<Path> paths() {
  namespace bp = bf16_paths;
  return {
      {"ref", bp::f32_to_bf16_ref, bp::bf16_to_f32_ref, bp::round_bf16_ref, true},
      {"avx2", bp::f32_to_bf16_avx2, bp::bf16_to_f32_avx2, bp::round_bf16_avx2, isa_supported(Isa::kAvx2)},
      {"avx512", bp::f32_to_bf16_avx512, bp::bf16_to_f32_avx512, bp::round_bf16_avx512, isa_supported(Isa::kAvx512)},
      {"avx512_bf16", bp::f32_to_bf16_avx512bf16, bp::bf16_to_f32_avx512, bp::round_bf16_avx512,
       isa_supported(Isa::kAvx512Bf16)},
      {"dispatched", f32_to_bf16_array, bf16_to_f32_array, round_bf16_array, true},
  };
}

const int64_t kSizes[] = {0, 1, 15, 16, 17, 31, 32, 33, 768, 769, (1 << 17) + 3};

TEST(Bf16, ArrayPathsMatchScalarBitForBit) {
  int tested = 0;
  for (const Path& p : paths()) {
    if (!p.available) continue;
    ++tested;
    for (int64_t n : kSizes) {
      std::vector<float> src = tricky_inputs(n, static_cast<uint32_t>(n) + 7);
      // A guard element after the end catches writes past n.
      std::vector<uint16_t> got(static_cast<size_t>(n) + 1, 0xabcd);
      p.to_bf16(src.data(), got.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &src[i], 4);
        ASSERT_EQ(got[i], f32_to_bf16(src[i]))
            << p.name << " n=" << n << " i=" << i << " input bits 0x" << std::hex << bits;
      }
      EXPECT_EQ(got[n], 0xabcd) << p.name << " wrote past the end, n=" << n;

      std::vector<float> back(static_cast<size_t>(n) + 1, 123.0f);
      p.to_f32(got.data(), back.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        uint32_t a, b = static_cast<uint32_t>(got[i]) << 16;
        std::memcpy(&a, &back[i], 4);
        ASSERT_EQ(a, b) << p.name << " bf16->f32 n=" << n << " i=" << i;
      }
      EXPECT_EQ(back[n], 123.0f) << p.name << " wrote past the end, n=" << n;

      std::vector<float> rounded(static_cast<size_t>(n) + 1, 123.0f);
      p.round(src.data(), rounded.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        uint32_t a, b = static_cast<uint32_t>(f32_to_bf16(src[i])) << 16;
        std::memcpy(&a, &rounded[i], 4);
        ASSERT_EQ(a, b) << p.name << " round n=" << n << " i=" << i;
      }
      EXPECT_EQ(rounded[n], 123.0f) << p.name << " wrote past the end, n=" << n;
    }
  }
  // The ref and dispatched paths always; a vector path too wherever the CPU has AVX2.
  EXPECT_GE(tested, isa_supported(Isa::kAvx2) ? 3 : 2);
}

// The array conversions run the path of the one ISA choice (CPUFT_ISA under `make test-isa`).
// At the amx level (which has no conversions of its own) they run the avx512_bf16 path.
TEST(Bf16, ArrayPathIsTheKernelIsa) {
  EXPECT_STREQ(bf16_convert_path(), isa_name(kernel_isa() == Isa::kAmx ? Isa::kAvx512Bf16 : kernel_isa()));
}

TEST(Bf16, ScalarArrayPathMatchesScalar) {
  std::vector<float> src = tricky_inputs(100, 3);
  std::vector<uint16_t> got(100);
  bf16_paths::f32_to_bf16_ref(src.data(), got.data(), 100);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(got[i], f32_to_bf16(src[i]));
}

}  // namespace
}  // namespace cpuft

// round_bf16_array: the scalar rounding, element for element, across the chunked parallel path, in
// place as well as into another array.
TEST(Bf16RoundArray, EqualsScalarRoundingOutOfAndInPlace) {
  std::vector<float> src(100003), out(src.size());
  uint32_t x = 12345;
  for (float& v : src) {
    x = x * 1664525u + 1013904223u;
    v = static_cast<float>(static_cast<int32_t>(x)) * 1e-7f;
  }
  cpuft::round_bf16_array(src.data(), out.data(), static_cast<int64_t>(src.size()));
  for (size_t i = 0; i < src.size(); ++i) ASSERT_EQ(out[i], cpuft::round_to_bf16(src[i])) << i;
  std::vector<float> inplace = src;
  cpuft::round_bf16_array(inplace.data(), inplace.data(), static_cast<int64_t>(inplace.size()));
  EXPECT_EQ(inplace, out);
}
