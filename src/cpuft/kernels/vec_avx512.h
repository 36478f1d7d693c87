// VecAvx512: the 16-lane f32 vector the shared kernel templates (*_vec.h) are written against.
// Only kernels_avx512.cc (built with AVX-512 F/BW/VL/DQ flags) includes this. Every function is
// static inline inside the struct, so no copy can leak into code that runs on AVX2-only CPUs.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace cpuft {

struct VecAvx512 {
  using F = __m512;    // 16 x f32
  using I = __m512i;   // 16 x u32
  using M = __mmask16;
  static constexpr int W = 16;
  static constexpr const char* kName = "avx512";

  static F zero() { return _mm512_setzero_ps(); }
  static F set1(float x) { return _mm512_set1_ps(x); }
  static F load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, F v) { _mm512_storeu_ps(p, v); }
  static F load_part(const float* p, int n, float fill) {
    return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), part_mask(n), p);
  }
  static void store_part(float* p, int n, F v) { _mm512_mask_storeu_ps(p, part_mask(n), v); }

  static F add(F a, F b) { return _mm512_add_ps(a, b); }
  static F sub(F a, F b) { return _mm512_sub_ps(a, b); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F div(F a, F b) { return _mm512_div_ps(a, b); }
  static F fma(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
  // Same NaN rule as VecAvx2: the second operand is returned when either is NaN.
  static F max(F a, F b) { return _mm512_max_ps(a, b); }
  static F min(F a, F b) { return _mm512_min_ps(a, b); }
  static F sqrt(F a) { return _mm512_sqrt_ps(a); }
  static F abs(F a) { return _mm512_abs_ps(a); }
  static F sign_bit(F a) {
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a),
                                                _mm512_set1_epi32(INT32_MIN)));
  }
  static F or_bits(F a, F b) {
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(a), _mm512_castps_si512(b)));
  }
  static F round_nearest(F a) {
    return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  // Same reduction tree as VecAvx2 applied to the two 256-bit halves first.
  static float hsum(F v) {
    __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  static float hmax(F v) { return _mm512_reduce_max_ps(v); }

  static M lt(F a, F b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
  static F select(M m, F a, F b) { return _mm512_mask_blend_ps(m, b, a); }  // m ? a : b
  static M zero_i8(const int8_t* p, int n) {
    __m128i v = _mm_maskz_loadu_epi8(static_cast<__mmask16>(part_mask(n)), p);
    return static_cast<M>(_mm_cmpeq_epi8_mask(v, _mm_setzero_si128()) & part_mask(n));
  }

  static M first(int n) { return part_mask(n); }

  using D = __m512d;
  static D dzero() { return _mm512_setzero_pd(); }
  static D add_squares(D acc, F x) {
    __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
    __m512d hi = _mm512_cvtps_pd(_mm512_extractf32x8_ps(x, 1));
    return _mm512_add_pd(_mm512_add_pd(acc, _mm512_mul_pd(lo, lo)), _mm512_mul_pd(hi, hi));
  }
  static double dhsum(D v) { return _mm512_reduce_add_pd(v); }

  static I iset1(uint32_t x) { return _mm512_set1_epi32(static_cast<int>(x)); }
  static I iota(uint32_t base) {
    return _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(base)),
                            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                                              15));
  }
  static I iadd(I a, I b) { return _mm512_add_epi32(a, b); }
  static I ixor(I a, I b) { return _mm512_xor_si512(a, b); }
  static I imul(I a, I b) { return _mm512_mullo_epi32(a, b); }
  template <int k>
  static I srl(I a) { return _mm512_srli_epi32(a, k); }
  template <int k>
  static I sll(I a) { return _mm512_slli_epi32(a, k); }
  // p * 2^n for integral n (vec_math.h's exp), rounded once: vscalefps.
  static F times_pow2(F p, F n) { return _mm512_scalef_ps(p, n); }
  static I isub(I a, I b) { return _mm512_sub_epi32(a, b); }
  static M ige(I a, I b) { return _mm512_cmpge_epi32_mask(a, b); }
  // A lane mask as W bits (lane i is bit i) and back.
  static uint32_t mask_bits(M m) { return m; }
  static M mask_of_bits(uint32_t b) { return static_cast<M>(b); }
  static I to_int(F a) { return _mm512_cvtps_epi32(a); }
  static F from_bits(I a) { return _mm512_castsi512_ps(a); }
  static I bits(F a) { return _mm512_castps_si512(a); }
  // table[idx] in each lane (vgatherdps).
  static F gather(const float* table, I idx) { return _mm512_i32gather_ps(idx, table, 4); }

  // bf16 by the same integer rounding as VecAvx2 (identical bits; VecAvx512Bf16 rounds by the
  // AVX512_BF16 conversion instead, the same bits but for f32 denormals, vec_avx512_bf16.h).
  static __m256i to_bf16(F v) {
    I b = _mm512_castps_si512(v);
    I lsb = _mm512_and_si512(_mm512_srli_epi32(b, 16), _mm512_set1_epi32(1));
    I r = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(b, _mm512_set1_epi32(0x7fff)), lsb),
                            16);
    M nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    r = _mm512_mask_or_epi32(r, nan, _mm512_srli_epi32(b, 16), _mm512_set1_epi32(0x40));
    return _mm512_cvtepi32_epi16(r);
  }
  // Each lane rounded to the value bf16 holds: to_bf16's bits as the high half of the lane.
  static F round_bf16(F v) {
    const I b = bits(v), high = _mm512_set1_epi32(static_cast<int>(0xffff0000u));
    const I lsb = _mm512_and_si512(_mm512_srli_epi32(b, 16), _mm512_set1_epi32(1));
    I r = _mm512_and_si512(_mm512_add_epi32(_mm512_add_epi32(b, _mm512_set1_epi32(0x7fff)), lsb), high);
    const M nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    r = _mm512_mask_or_epi32(r, nan, _mm512_and_si512(b, high), _mm512_set1_epi32(0x400000));
    return from_bits(r);
  }
  static void store_bf16(uint16_t* p, F v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), to_bf16(v));
  }
  static void store_bf16_part(uint16_t* p, int n, F v) {
    _mm256_mask_storeu_epi16(p, part_mask(n), to_bf16(v));
  }
  // bf16 -> f32 (exact): the bf16 bits as the high half of each lane.
  static F load_bf16(const uint16_t* p) {
    return from_bits(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))), 16));
  }
  static F load_bf16_part(const uint16_t* p, int n) {
    return from_bits(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(part_mask(n), p)), 16));
  }

 private:
  static __mmask16 part_mask(int n) {
    return static_cast<__mmask16>(n >= 16 ? 0xffffu : ((1u << n) - 1u));
  }
};

}  // namespace cpuft
