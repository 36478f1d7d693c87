// Every AVX-512 / AVX512_BF16 intrinsic the kernels use (src/cpuft/**/*_avx512.cc, vec_avx512*.h,
// gemm_tile_pairs_avx512.h), each as an operation on three 64-byte inputs with a 64-byte result. This
// header is compiled twice in the emulated test build: by fidelity_native.cc with the AVX-512 flags
// (the instructions) and by fidelity_emulated_avx512.cc with the emulated build's flags
// (avx512_on_avx2.h), each in its own namespace (FIDELITY_NS), and fidelity_test.cc compares the two
// bit for bit on a CPU that has the instructions. Add an intrinsic here when a kernel starts using it.
#pragma once

#ifndef FIDELITY_NS
#error "define FIDELITY_NS before including fidelity_ops.h"
#endif

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "emulation/fidelity_op.h"

namespace cpuft::test::FIDELITY_NS {

inline __m512 ps(const void* p) { return _mm512_loadu_ps(p); }
inline __m512i si(const void* p) { return _mm512_loadu_si512(p); }
inline __m512d pd(const void* p) {
  __m512d v;
  std::memcpy(&v, p, 64);
  return v;
}
inline __m256i si256(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline __m256 ps256(const void* p) { return _mm256_loadu_ps(static_cast<const float*>(p)); }
inline uint32_t word(const void* p) {
  uint32_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}
// A result of `bytes` bytes, the rest of the 64 zero.
inline void out(void* o, const void* v, size_t bytes) {
  std::memset(o, 0, 64);
  std::memcpy(o, v, bytes);
}
// (A macro, not a template: GCC drops the vector types' attributes in template arguments.)
#define FIDELITY_PUT(o, expr)       \
  do {                              \
    const auto value_ = (expr);     \
    out(o, &value_, sizeof value_); \
  } while (0)

// A double result with every NaN as one: which operand's NaN an addition returns is not fixed by C++
// arithmetic (GCC's own reduction is written in it), and the kernels never read NaN payloads.
inline double any_nan(double x) { return x != x ? __builtin_nan("") : x; }

// The lane masks of the tests: the first n lanes (masked loads and stores of tails), or any mask.
inline __mmask16 mask16(const void* c) { return static_cast<__mmask16>(word(c)); }

inline const FidelityOp* fidelity_ops(int* count) {
  static const FidelityOp ops[] = {
      {"add_ps", true, [](const void* a, const void* b, const void*, void* o) { FIDELITY_PUT(o, _mm512_add_ps(ps(a), ps(b))); }},
      {"sub_ps", true, [](const void* a, const void* b, const void*, void* o) { FIDELITY_PUT(o, _mm512_sub_ps(ps(a), ps(b))); }},
      {"mul_ps", true, [](const void* a, const void* b, const void*, void* o) { FIDELITY_PUT(o, _mm512_mul_ps(ps(a), ps(b))); }},
      {"div_ps", true, [](const void* a, const void* b, const void*, void* o) { FIDELITY_PUT(o, _mm512_div_ps(ps(a), ps(b))); }},
      {"fmadd_ps", true,
       [](const void* a, const void* b, const void* c, void* o) { FIDELITY_PUT(o, _mm512_fmadd_ps(ps(a), ps(b), ps(c))); }},
      {"max_ps", true, [](const void* a, const void* b, const void*, void* o) { FIDELITY_PUT(o, _mm512_max_ps(ps(a), ps(b))); }},
      {"min_ps", true, [](const void* a, const void* b, const void*, void* o) { FIDELITY_PUT(o, _mm512_min_ps(ps(a), ps(b))); }},
      {"sqrt_ps", true, [](const void* a, const void*, const void*, void* o) { FIDELITY_PUT(o, _mm512_sqrt_ps(ps(a))); }},
      {"abs_ps", true, [](const void* a, const void*, const void*, void* o) { FIDELITY_PUT(o, _mm512_abs_ps(ps(a))); }},
      {"roundscale_ps nearest", true,
       [](const void* a, const void*, const void*, void* o) {
         FIDELITY_PUT(o, _mm512_roundscale_ps(ps(a), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
       }},
      {"scalef_ps", true, [](const void* a, const void* b, const void*, void* o) { FIDELITY_PUT(o, _mm512_scalef_ps(ps(a), ps(b))); }},
      {"cmp_ps_mask lt", false,
       [](const void* a, const void* b, const void*, void* o) { FIDELITY_PUT(o, _mm512_cmp_ps_mask(ps(a), ps(b), _CMP_LT_OQ)); }},
      {"cmp_ps_mask unord", false,
       [](const void* a, const void* b, const void*, void* o) {
         FIDELITY_PUT(o, _mm512_cmp_ps_mask(ps(a), ps(b), _CMP_UNORD_Q));
       }},
      {"mask_blend_ps", true,
       [](const void* a, const void* b, const void* c, void* o) { FIDELITY_PUT(o, _mm512_mask_blend_ps(mask16(c), ps(a), ps(b))); }},
      {"reduce_max_ps", true, [](const void* a, const void*, const void*, void* o) { FIDELITY_PUT(o, _mm512_reduce_max_ps(ps(a))); }},
      {"cvtps_pd, mul_pd, add_pd, reduce_add_pd", false,
       [](const void* a, const void* b, const void*, void* o) {
         const __m512d x = _mm512_cvtps_pd(ps256(a)), y = _mm512_cvtps_pd(_mm512_extractf32x8_ps(ps(b), 1));
         FIDELITY_PUT(o, any_nan(_mm512_reduce_add_pd(_mm512_add_pd(_mm512_mul_pd(x, x), y))));
       }},
      {"reduce_add_pd", false, [](const void* a, const void*, const void*, void* o) { FIDELITY_PUT(o, any_nan(_mm512_reduce_add_pd(pd(a)))); }},
      {"castps512_ps256", true, [](const void* a, const void*, const void*, void* o) { FIDELITY_PUT(o, _mm512_castps512_ps256(ps(a))); }},
      {"cvtps_epi32", false, [](const void* a, const void*, const void*, void* o) { FIDELITY_PUT(o, _mm512_cvtps_epi32(ps(a))); }},
      {"cvtepi32_ps", true, [](const void* a, const void*, const void*, void* o) { FIDELITY_PUT(o, _mm512_cvtepi32_ps(si(a))); }},
      {"cvtepu16_epi32", false, [](const void* a, const void*, const void*, void* o) { FIDELITY_PUT(o, _mm512_cvtepu16_epi32(si256(a))); }},
      {"cvtepi32_epi16", false, [](const void* a, const void*, const void*, void* o) { FIDELITY_PUT(o, _mm512_cvtepi32_epi16(si(a))); }},
      {"cvtusepi32_epi8", false, [](const void* a, const void*, const void*, void* o) { FIDELITY_PUT(o, _mm512_cvtusepi32_epi8(si(a))); }},
      {"cvtneps_pbh", false, [](const void* a, const void*, const void*, void* o) { FIDELITY_PUT(o, _mm512_cvtneps_pbh(ps(a))); }},
      {"cvtne2ps_pbh", false,
       [](const void* a, const void* b, const void*, void* o) { FIDELITY_PUT(o, _mm512_cvtne2ps_pbh(ps(a), ps(b))); }},
      {"dpbf16_ps", true,
       [](const void* a, const void* b, const void* c, void* o) {
         __m512i x = si(a), y = si(b);
         FIDELITY_PUT(o, _mm512_dpbf16_ps(ps(c), reinterpret_cast<__m512bh&>(x), reinterpret_cast<__m512bh&>(y)));
       }},
      {"add_epi32 sub_epi32 mullo_epi32", false,
       [](const void* a, const void* b, const void* c, void* o) {
         FIDELITY_PUT(o, _mm512_mullo_epi32(_mm512_sub_epi32(_mm512_add_epi32(si(a), si(b)), si(c)), si(b)));
       }},
      {"srli_epi32 slli_epi32 and or xor", false,
       [](const void* a, const void* b, const void* c, void* o) {
         FIDELITY_PUT(o, _mm512_xor_si512(_mm512_or_si512(_mm512_srli_epi32(si(a), 13), _mm512_slli_epi32(si(b), 7)),
                                 _mm512_and_si512(si(c), si(a))));
       }},
      {"mask_or_epi32", false,
       [](const void* a, const void* b, const void* c, void* o) {
         FIDELITY_PUT(o, _mm512_mask_or_epi32(si(a), mask16(c), si(b), si(c)));
       }},
      {"cmpge_epi32_mask", false,
       [](const void* a, const void* b, const void*, void* o) { FIDELITY_PUT(o, _mm512_cmpge_epi32_mask(si(a), si(b))); }},
      {"cmpgt_epu32_mask", false,
       [](const void* a, const void* b, const void*, void* o) { FIDELITY_PUT(o, _mm512_cmpgt_epu32_mask(si(a), si(b))); }},
      {"test_epi32_mask", false,
       [](const void* a, const void* b, const void*, void* o) { FIDELITY_PUT(o, _mm512_test_epi32_mask(si(a), si(b))); }},
      {"testn_epi32_mask", false,
       [](const void* a, const void* b, const void*, void* o) { FIDELITY_PUT(o, _mm512_testn_epi32_mask(si(a), si(b))); }},
      {"unpacklo/hi_epi32, unpacklo/hi_epi64, shuffle_i32x4", false,
       [](const void* a, const void* b, const void*, void* o) {
         const __m512i lo = _mm512_unpacklo_epi32(si(a), si(b)), hi = _mm512_unpackhi_epi32(si(a), si(b));
         const __m512i x = _mm512_unpacklo_epi64(lo, hi), y = _mm512_unpackhi_epi64(lo, hi);
         FIDELITY_PUT(o, _mm512_xor_si512(_mm512_shuffle_i32x4(x, y, 0x88), _mm512_shuffle_i32x4(x, y, 0xdd)));
       }},
      {"i32gather_ps", true,
       [](const void* a, const void* b, const void*, void* o) {
         const __m512i idx = _mm512_and_si512(si(b), _mm512_set1_epi32(15));  // lanes of the 64-byte a
         FIDELITY_PUT(o, _mm512_i32gather_ps(idx, static_cast<const float*>(a), 4));
       }},
      {"mask_loadu_ps", true,
       [](const void* a, const void* b, const void* c, void* o) {
         FIDELITY_PUT(o, _mm512_mask_loadu_ps(ps(b), mask16(c), static_cast<const float*>(a)));
       }},
      {"maskz_loadu_ps", true,
       [](const void* a, const void*, const void* c, void* o) {
         FIDELITY_PUT(o, _mm512_maskz_loadu_ps(mask16(c), static_cast<const float*>(a)));
       }},
      {"maskz_loadu_epi16", false,
       [](const void* a, const void* b, const void*, void* o) {
         FIDELITY_PUT(o, _mm512_maskz_loadu_epi16(static_cast<__mmask32>(word(b)), a));
       }},
      {"256 maskz_loadu_epi16", false,
       [](const void* a, const void*, const void* c, void* o) { FIDELITY_PUT(o, _mm256_maskz_loadu_epi16(mask16(c), a)); }},
      {"128 maskz_loadu_epi8, cmpeq_epi8_mask", false,
       [](const void* a, const void* b, const void* c, void* o) {
         FIDELITY_PUT(o, _mm_cmpeq_epi8_mask(_mm_maskz_loadu_epi8(mask16(c), a), _mm_loadu_si128(static_cast<const __m128i*>(b))));
       }},
      {"mask_storeu_ps", true,
       [](const void* a, const void* b, const void* c, void* o) {
         std::memcpy(o, b, 64);
         _mm512_mask_storeu_ps(static_cast<float*>(o), mask16(c), ps(a));
       }},
      {"mask_storeu_epi32", false,
       [](const void* a, const void* b, const void* c, void* o) {
         std::memcpy(o, b, 64);
         _mm512_mask_storeu_epi32(o, mask16(c), si(a));
       }},
      {"256 mask_storeu_epi16", false,
       [](const void* a, const void* b, const void* c, void* o) {
         std::memcpy(o, b, 64);
         _mm256_mask_storeu_epi16(o, mask16(c), si256(a));
       }},
  };
  *count = static_cast<int>(sizeof ops / sizeof ops[0]);
  return ops;
}

}  // namespace cpuft::test::FIDELITY_NS
