// f32 -> bf16 rounding of sixteen lanes in AVX-512 integer code, the rule of f32_to_bf16 (bf16.h) bit
// for bit. For the *_avx512.cc files only (it needs their ISA flags): the bf16 array conversions and
// the attention tiles' bf16 products, which round their outputs with it.
#pragma once

#include <immintrin.h>

namespace cpuft {

// Sixteen floats (as their bits) to sixteen bf16.
static inline __m256i round16(__m512i u) {
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff)));
  const __mmask16 is_nan = _mm512_cmpgt_epu32_mask(
      _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
  r = _mm512_mask_or_epi32(r, is_nan, u, _mm512_set1_epi32(0x00400000));
  return _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16));
}

}  // namespace cpuft
