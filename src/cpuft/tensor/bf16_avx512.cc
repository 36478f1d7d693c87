// AVX-512 bf16 conversions. Compiled with AVX-512 flags; bf16.cc calls them only when the CPU and
// kernel_isa() allow.
// GCC 12 reports its own _mm512_undefined_* helpers inside the intrinsics as maybe-uninitialized.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <immintrin.h>

#include "cpuft/tensor/bf16.h"
#include "cpuft/tensor/bf16_paths.h"
#include "cpuft/tensor/bf16_round_avx512.h"

namespace cpuft::bf16_paths {
namespace {

inline __mmask16 tail_mask(int64_t left) {
  return static_cast<__mmask16>(left >= 16 ? 0xffff : (1u << left) - 1u);
}

// Lanes holding a denormal: exponent bits zero, mantissa bits not.
inline __mmask16 denormal_lanes(__m512i u) {
  return _mm512_testn_epi32_mask(u, _mm512_set1_epi32(0x7f800000)) &
         _mm512_test_epi32_mask(u, _mm512_set1_epi32(0x007fffff));
}

}  // namespace

void f32_to_bf16_avx512(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = tail_mask(n - i);
    const __m512i u = _mm512_castps_si512(_mm512_maskz_loadu_ps(m, src + i));
    _mm256_mask_storeu_epi16(dst + i, m, round16(u));
  }
}

void bf16_to_f32_avx512(const uint16_t* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = tail_mask(n - i);
    const __m256i h = _mm256_maskz_loadu_epi16(m, src + i);
    const __m512i u = _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16);
    _mm512_mask_storeu_ps(dst + i, m, _mm512_castsi512_ps(u));
  }
}

void round_bf16_avx512(const float* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = tail_mask(n - i);
    const __m512i u = _mm512_castps_si512(_mm512_maskz_loadu_ps(m, src + i));
    const __m512i f = _mm512_slli_epi32(_mm512_cvtepu16_epi32(round16(u)), 16);
    _mm512_mask_storeu_ps(dst + i, m, _mm512_castsi512_ps(f));
  }
}

void f32_to_bf16_avx512bf16(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 lo = _mm512_loadu_ps(src + i);
    const __m512 hi = _mm512_loadu_ps(src + i + 16);
    const __mmask16 denormal = denormal_lanes(_mm512_castps_si512(lo)) |
                               denormal_lanes(_mm512_castps_si512(hi));
    if (denormal) {
      // The instruction flushes denormal inputs to zero; keep them like the scalar rule does.
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), round16(_mm512_castps_si512(lo)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i + 16), round16(_mm512_castps_si512(hi)));
    } else {
      // cvtne2ps puts its second argument in the low half.
      const __m512bh packed = _mm512_cvtne2ps_pbh(hi, lo);
      _mm512_storeu_si512(dst + i, (__m512i)packed);
    }
  }
  f32_to_bf16_avx512(src + i, dst + i, n - i);
}

}  // namespace cpuft::bf16_paths
