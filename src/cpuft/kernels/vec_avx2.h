// VecAvx2: the 8-lane f32 vector the shared kernel templates (*_vec.h) are written against.
// Only kernels_avx2.cc includes this. Every function is static inline inside the struct, so no
// out-of-line copy can be shared with (or taken from) a translation unit built for another ISA.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace cpuft {

struct VecAvx2 {
  using F = __m256;   // 8 x f32
  using I = __m256i;  // 8 x u32
  using M = __m256;   // lane mask: all ones / all zeros per lane
  static constexpr int W = 8;
  static constexpr const char* kName = "avx2";

  static F zero() { return _mm256_setzero_ps(); }
  static F set1(float x) { return _mm256_set1_ps(x); }
  static F load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, F v) { _mm256_storeu_ps(p, v); }
  // Lanes [0, n) from p, the others `fill`; n in [0, W].
  static F load_part(const float* p, int n, float fill) {
    I m = part_mask(n);
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, m),
                            _mm256_castsi256_ps(m));
  }
  static void store_part(float* p, int n, F v) { _mm256_maskstore_ps(p, part_mask(n), v); }

  static F add(F a, F b) { return _mm256_add_ps(a, b); }
  static F sub(F a, F b) { return _mm256_sub_ps(a, b); }
  static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F div(F a, F b) { return _mm256_div_ps(a, b); }
  static F fma(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }  // a*b + c, one rounding
  // max/min return the SECOND operand when either is NaN: pass the data as `b` to keep NaNs.
  static F max(F a, F b) { return _mm256_max_ps(a, b); }
  static F min(F a, F b) { return _mm256_min_ps(a, b); }
  static F sqrt(F a) { return _mm256_sqrt_ps(a); }
  static F abs(F a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
  static F sign_bit(F a) { return _mm256_and_ps(_mm256_set1_ps(-0.0f), a); }
  static F or_bits(F a, F b) { return _mm256_or_ps(a, b); }
  static F round_nearest(F a) {
    return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  static float hsum(F v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  static float hmax(F v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }

  static M lt(F a, F b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static F select(M m, F a, F b) { return _mm256_blendv_ps(b, a, m); }  // m ? a : b
  // Lanes whose int8 at p[0..n) is 0 (n in [0, W]; lanes >= n are false). A full vector is one 8-byte
  // load: a copy of variable length is a call to memcpy, and the load after it waits for its stores.
  static M zero_i8(const int8_t* p, int n) {
    if (n == W) {
      const I v = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
      return _mm256_castsi256_ps(_mm256_cmpeq_epi32(v, _mm256_setzero_si256()));
    }
    int64_t bytes = 0;
    std::memcpy(&bytes, p, static_cast<size_t>(n));
    I v = _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(bytes));
    return _mm256_castsi256_ps(
        _mm256_and_si256(_mm256_cmpeq_epi32(v, _mm256_setzero_si256()), part_mask(n)));
  }
  static M first(int n) { return _mm256_castsi256_ps(part_mask(n)); }  // lanes [0, n)

  // Double lanes for exact sums of squares (x*x of an f32 is exact in double).
  using D = __m256d;
  static D dzero() { return _mm256_setzero_pd(); }
  static D add_squares(D acc, F x) {
    __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
    __m256d hi = _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
    return _mm256_add_pd(_mm256_add_pd(acc, _mm256_mul_pd(lo, lo)), _mm256_mul_pd(hi, hi));
  }
  static double dhsum(D v) {
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
  }

  // Integer lanes (the dropout hash and exp's exponent construction).
  static I iset1(uint32_t x) { return _mm256_set1_epi32(static_cast<int>(x)); }
  static I iota(uint32_t base) {
    return _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(base)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static I iadd(I a, I b) { return _mm256_add_epi32(a, b); }
  static I ixor(I a, I b) { return _mm256_xor_si256(a, b); }
  static I imul(I a, I b) { return _mm256_mullo_epi32(a, b); }
  template <int k>
  static I srl(I a) { return _mm256_srli_epi32(a, k); }
  template <int k>
  static I sll(I a) { return _mm256_slli_epi32(a, k); }
  // p * 2^n for integral n in [-150, 128] (vec_math.h's exp), rounded once: two factors 2^(n/2), so that
  // neither leaves the normal exponent range and only the last product rounds (VecAvx512's vscalefps
  // gives the same bits).
  static F times_pow2(F p, F n) {
    const I ni = _mm256_cvtps_epi32(n), bias = _mm256_set1_epi32(127);
    const I n1 = _mm256_srai_epi32(ni, 1), n2 = _mm256_sub_epi32(ni, n1);
    const F s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
    const F s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
    return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
  }
  static I isub(I a, I b) { return _mm256_sub_epi32(a, b); }
  // Signed compare a >= b as a lane mask (used on values < 2^31).
  static M ige(I a, I b) {
    return _mm256_castsi256_ps(
        _mm256_xor_si256(_mm256_cmpgt_epi32(b, a), _mm256_set1_epi32(-1)));
  }
  // A lane mask as W bits (lane i is bit i) and back.
  static uint32_t mask_bits(M m) { return static_cast<uint32_t>(_mm256_movemask_ps(m)); }
  static M mask_of_bits(uint32_t b) {
    const I lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const I set = _mm256_and_si256(_mm256_set1_epi32(static_cast<int>(b)), lane_bit);
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(set, lane_bit));
  }
  static I to_int(F a) { return _mm256_cvtps_epi32(a); }  // round to nearest
  static F from_bits(I a) { return _mm256_castsi256_ps(a); }
  static I bits(F a) { return _mm256_castps_si256(a); }
  // table[idx] in each lane (vgatherdps).
  static F gather(const float* table, I idx) { return _mm256_i32gather_ps(table, idx, 4); }

  // bf16 of each lane, round to nearest even, NaN stays a quiet NaN with its sign.
  static __m128i to_bf16(F v) {
    I b = _mm256_castps_si256(v);
    I lsb = _mm256_and_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(1));
    I r = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(b, _mm256_set1_epi32(0x7fff)), lsb),
                            16);
    I nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    I q = _mm256_or_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(0x40));
    r = _mm256_blendv_epi8(r, q, nan);
    __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    return packed;
  }
  // Each lane rounded to the value bf16 holds: to_bf16's bits as the high half of the lane.
  static F round_bf16(F v) {
    const I b = bits(v), high = _mm256_set1_epi32(static_cast<int>(0xffff0000u));
    const I lsb = _mm256_and_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(1));
    const I r = _mm256_and_si256(_mm256_add_epi32(_mm256_add_epi32(b, _mm256_set1_epi32(0x7fff)), lsb), high);
    const I nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    const I q = _mm256_or_si256(_mm256_and_si256(b, high), _mm256_set1_epi32(0x400000));
    return from_bits(_mm256_blendv_epi8(r, q, nan));
  }
  static void store_bf16(uint16_t* p, F v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), to_bf16(v));
  }
  static void store_bf16_part(uint16_t* p, int n, F v) {
    alignas(16) uint16_t tmp[W];
    _mm_store_si128(reinterpret_cast<__m128i*>(tmp), to_bf16(v));
    std::memcpy(p, tmp, sizeof(uint16_t) * static_cast<size_t>(n));
  }
  // bf16 -> f32 (exact): the bf16 bits as the high half of each lane.
  static F load_bf16(const uint16_t* p) {
    return from_bits(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), 16));
  }
  static F load_bf16_part(const uint16_t* p, int n) {
    alignas(16) uint16_t tmp[W] = {};
    std::memcpy(tmp, p, sizeof(uint16_t) * static_cast<size_t>(n));
    return load_bf16(tmp);
  }

 private:
  static I part_mask(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
};

}  // namespace cpuft
