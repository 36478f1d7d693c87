// VecAvx512Bf16: VecAvx512 with its f32 -> bf16 rounding done by AVX512_BF16's conversion
// (vcvtneps2bf16: two micro-operations where the integer rounding takes eight to ten) wherever no lane
// is an f32 denormal. The instruction rounds to nearest even and quiets a NaN as f32_to_bf16 does
// (the top mantissa bits kept, the quiet bit set), but reads denormal inputs as zero; lanes of a vector
// with a denormal go through VecAvx512's integer rounding instead, so every value gets the bits it
// gets on every other ISA (as tensor/bf16_avx512.cc's array conversion does it). Only kernels_avx512_bf16.cc (AVX-512 flags, which include AVX512_BF16)
// includes this, and only CPUs with AVX512_BF16 enter it.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "cpuft/kernels/vec_avx512.h"

namespace cpuft {

struct VecAvx512Bf16 : VecAvx512 {
  static constexpr const char* kName = "avx512_bf16";

  static bool any_denormal(F v) { return _mm512_fpclass_ps_mask(v, 0x20) != 0; }  // imm bit 5: denormal
  static __m256i to_bf16(F v) {
    if (any_denormal(v)) return VecAvx512::to_bf16(v);
    return reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(v));
  }
  static F round_bf16(F v) {
    if (any_denormal(v)) return VecAvx512::round_bf16(v);
    return from_bits(_mm512_slli_epi32(_mm512_cvtepu16_epi32(to_bf16(v)), 16));
  }
  static void store_bf16(uint16_t* p, F v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), to_bf16(v)); }
  static void store_bf16_part(uint16_t* p, int n, F v) {
    _mm256_mask_storeu_epi16(p, static_cast<__mmask16>(n >= 16 ? 0xffffu : ((1u << n) - 1u)), to_bf16(v));
  }
};

}  // namespace cpuft
