// AVX2 bf16 conversions. Compiled with AVX2 flags; bf16.cc calls them only when kernel_isa() is
// avx2 (cpu/isa.h checks the CPU).
#include <immintrin.h>

#include "cpuft/tensor/bf16.h"
#include "cpuft/tensor/bf16_paths.h"

namespace cpuft::bf16_paths {

namespace {

// Eight floats to eight bf16 in the low 16 bits of each 32-bit lane (same rule as f32_to_bf16).
inline __m256i round8(__m256 f) {
  const __m256i u = _mm256_castps_si256(f);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff)));
  // |u| > inf bits <=> NaN; the signed compare is safe because the sign bit is masked off.
  const __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)),
                                            _mm256_set1_epi32(0x7f800000));
  const __m256i quiet = _mm256_or_si256(u, _mm256_set1_epi32(0x00400000));
  return _mm256_srli_epi32(_mm256_blendv_epi8(rounded, quiet, is_nan), 16);
}

}  // namespace

void f32_to_bf16_avx2(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i lo = round8(_mm256_loadu_ps(src + i));
    __m256i hi = round8(_mm256_loadu_ps(src + i + 8));
    // packus works per 128-bit lane: [lo0-3 hi0-3 | lo4-7 hi4-7]; the permute restores order.
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), packed);
  }
  f32_to_bf16_ref(src + i, dst + i, n - i);
}

void bf16_to_f32_avx2(const uint16_t* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    __m256i u = _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
    _mm256_storeu_ps(dst + i, _mm256_castsi256_ps(u));
  }
  bf16_to_f32_ref(src + i, dst + i, n - i);
}

void round_bf16_avx2(const float* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i h = round8(_mm256_loadu_ps(src + i));
    _mm256_storeu_ps(dst + i, _mm256_castsi256_ps(_mm256_slli_epi32(h, 16)));
  }
  round_bf16_ref(src + i, dst + i, n - i);
}

}  // namespace cpuft::bf16_paths
