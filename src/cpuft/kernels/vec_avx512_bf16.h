// VecAvx512Bf16: VecAvx512 with its f32 -> bf16 rounding done by AVX512_BF16's conversion
// (vcvtneps2bf16: two micro-operations where the integer rounding takes eight to ten). It rounds to
// nearest even and quiets a NaN as f32_to_bf16 does (the top mantissa bits kept, the quiet bit set), but
// reads an f32 denormal as zero (of its sign). At the levels that run these kernels (avx512_bf16, amx)
// every bf16 value the kernels write is read by bf16 products that read denormals as zero themselves
// (vdpbf16ps, tdpbf16ps, oneDNN's bf16 products), and the softmax's rounded scores enter exp(s - max),
// where a denormal and a zero give the same value: the same model either way. Checking every vector for
// denormals (to take the integer rounding there) cost as much as the conversion saves. Only
// kernels_avx512.cc (AVX-512 flags, which include AVX512_BF16) includes this, and only CPUs with
// AVX512_BF16 enter its table.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "cpuft/kernels/vec_avx512.h"

namespace cpuft {

struct VecAvx512Bf16 : VecAvx512 {
  static constexpr const char* kName = "avx512_bf16";

  static __m256i to_bf16(F v) { return reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(v)); }
  static F round_bf16(F v) { return from_bits(_mm512_slli_epi32(_mm512_cvtepu16_epi32(to_bf16(v)), 16)); }
  static void store_bf16(uint16_t* p, F v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), to_bf16(v)); }
  static void store_bf16_part(uint16_t* p, int n, F v) { _mm256_mask_storeu_epi16(p, first(n), to_bf16(v)); }
};

}  // namespace cpuft
