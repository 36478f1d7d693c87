// AVX-512 F/BW/VL/DQ and AVX512_BF16 intrinsics on an AVX2 CPU, for the emulated test build only
// (CMake option CPUFT_EMULATE_AVX512, `make test-isa-emulated`): every *_avx512.cc file is compiled for
// AVX2 + FMA with this header included first, so the avx512 and avx512_bf16 kernel builds, the very
// source the CPUs with AVX-512 run, can be run and tested on a CPU without it. It is not a speed path.
//
// SIMDe (Debian package libsimde-dev) provides most intrinsics under their own names (its "native
// aliases"). The ones SIMDe 0.7.4 lacks, or defines otherwise than the instruction, are written below
// by the instruction's definition in Intel's manual: masked lanes are neither read nor written; the
// AVX512_BF16 conversion rounds to nearest even, reads an f32 denormal as zero and quiets a NaN;
// vscalefps keeps denormals; |x| clears the sign bit (of -0 too); vdpbf16ps adds the odd pair's
// product first, each product exactly, and flushes denormals. The reductions follow GCC's own header,
// operation for operation, so their bits are the native build's. A kernel test that compares an
// AVX-512 build with the reference or with AVX2 bit for bit therefore tests the kernel's own logic
// here; the emulation itself is held to the instructions by test_emulation on a CPU that has them
// (fidelity_test.cc). AMX has no emulation: the amx level stays unsupported in this build.
#pragma once

#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

namespace cpuft_emu {

template <typename T, int N>
struct Lanes {
  T v[N];
};

template <typename T, int N, typename V>
inline Lanes<T, N> lanes(const V& x) {
  static_assert(sizeof(V) == sizeof(T) * N, "lane count");
  Lanes<T, N> l;
  std::memcpy(l.v, &x, sizeof(V));
  return l;
}

template <typename V, typename T, int N>
inline V vector_of(const Lanes<T, N>& l) {
  static_assert(sizeof(V) == sizeof(T) * N, "lane count");
  V x;
  std::memcpy(&x, l.v, sizeof(V));
  return x;
}

// Half h (0: lanes 0-7, 1: lanes 8-15) of a 512-bit vector, and two halves as one (no templates over the
// vector types: GCC drops their attributes there).
inline void copy_half(void* dst, const void* src, int h) {
  std::memcpy(dst, static_cast<const char*>(src) + 32 * h, 32);
}
inline void put_halves(void* dst, const void* lo, const void* hi) {
  std::memcpy(dst, lo, 32);
  std::memcpy(static_cast<char*>(dst) + 32, hi, 32);
}
inline __m256 half(simde__m512 a, int h) {
  __m256 r;
  copy_half(&r, &a, h);
  return r;
}
inline __m256i half(simde__m512i a, int h) {
  __m256i r;
  copy_half(&r, &a, h);
  return r;
}
inline simde__m512 join256(__m256 lo, __m256 hi) {
  simde__m512 a;
  put_halves(&a, &lo, &hi);
  return a;
}
inline simde__m512i join256(__m256i lo, __m256i hi) {
  simde__m512i a;
  put_halves(&a, &lo, &hi);
  return a;
}

// Masked loads and stores: lane i moves only when bit i of k is set.
template <typename V, typename T, int N, typename K>
inline V mask_load(V src, K k, const void* p) {
  Lanes<T, N> l = lanes<T, N>(src);
  const unsigned char* q = static_cast<const unsigned char*>(p);
  for (int i = 0; i < N; ++i)
    if ((static_cast<uint64_t>(k) >> i) & 1) std::memcpy(&l.v[i], q + i * sizeof(T), sizeof(T));
  return vector_of<V>(l);
}

template <typename T, int N, typename V, typename K>
inline void mask_store(void* p, K k, V a) {
  const Lanes<T, N> l = lanes<T, N>(a);
  unsigned char* q = static_cast<unsigned char*>(p);
  for (int i = 0; i < N; ++i)
    if ((static_cast<uint64_t>(k) >> i) & 1) std::memcpy(q + i * sizeof(T), &l.v[i], sizeof(T));
}

inline simde__m512 mm512_mask_loadu_ps(simde__m512 src, simde__mmask16 k, const void* p) {
  return mask_load<simde__m512, float, 16>(src, k, p);
}
inline simde__m512 mm512_maskz_loadu_ps(simde__mmask16 k, const void* p) {
  return mask_load<simde__m512, float, 16>(simde_mm512_setzero_ps(), k, p);
}
inline void mm512_mask_storeu_ps(void* p, simde__mmask16 k, simde__m512 a) { mask_store<float, 16>(p, k, a); }
inline void mm512_mask_storeu_epi32(void* p, simde__mmask16 k, simde__m512i a) { mask_store<int32_t, 16>(p, k, a); }
inline simde__m512i mm512_maskz_loadu_epi16(simde__mmask32 k, const void* p) {
  return mask_load<simde__m512i, int16_t, 32>(simde_mm512_setzero_si512(), k, p);
}
inline __m256i mm256_maskz_loadu_epi16(simde__mmask16 k, const void* p) {
  return mask_load<__m256i, int16_t, 16>(_mm256_setzero_si256(), k, p);
}
inline void mm256_mask_storeu_epi16(void* p, simde__mmask16 k, __m256i a) { mask_store<int16_t, 16>(p, k, a); }
inline __m128i mm_maskz_loadu_epi8(simde__mmask16 k, const void* p) {
  return mask_load<__m128i, int8_t, 16>(_mm_setzero_si128(), k, p);
}

inline simde__mmask16 mm_cmpeq_epi8_mask(__m128i a, __m128i b) {
  return static_cast<simde__mmask16>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)));
}
inline simde__mmask16 mm512_testn_epi32_mask(simde__m512i a, simde__m512i b) {
  const Lanes<uint32_t, 16> x = lanes<uint32_t, 16>(a), y = lanes<uint32_t, 16>(b);
  unsigned k = 0;
  for (int i = 0; i < 16; ++i) k |= static_cast<unsigned>((x.v[i] & y.v[i]) == 0) << i;
  return static_cast<simde__mmask16>(k);
}
inline simde__mmask16 mm512_cmpgt_epu32_mask(simde__m512i a, simde__m512i b) {
  const Lanes<uint32_t, 16> x = lanes<uint32_t, 16>(a), y = lanes<uint32_t, 16>(b);
  unsigned k = 0;
  for (int i = 0; i < 16; ++i) k |= static_cast<unsigned>(x.v[i] > y.v[i]) << i;
  return static_cast<simde__mmask16>(k);
}

// 32-bit integer arithmetic wraps, as the instructions do, on each half (SIMDe 0.7.4's portable code
// overflows signed ints, which UBSan stops on in the sanitized emulated build).
inline simde__m512i mm512_add_epi32(simde__m512i a, simde__m512i b) {
  return join256(_mm256_add_epi32(half(a, 0), half(b, 0)), _mm256_add_epi32(half(a, 1), half(b, 1)));
}
inline simde__m512i mm512_sub_epi32(simde__m512i a, simde__m512i b) {
  return join256(_mm256_sub_epi32(half(a, 0), half(b, 0)), _mm256_sub_epi32(half(a, 1), half(b, 1)));
}
inline simde__m512i mm512_mullo_epi32(simde__m512i a, simde__m512i b) {
  return join256(_mm256_mullo_epi32(half(a, 0), half(b, 0)), _mm256_mullo_epi32(half(a, 1), half(b, 1)));
}

// |a| clears the sign bit, as the instruction (vpandd) does: |-0| is +0 (SIMDe's negates the negative
// lanes and keeps -0).
inline simde__m512 mm512_abs_ps(simde__m512 a) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  return join256(_mm256_andnot_ps(sign, half(a, 0)), _mm256_andnot_ps(sign, half(a, 1)));
}

// Conversions. Those with an AVX2 instruction of the same definition run it on each half.
inline simde__m512i mm512_cvtps_epi32(simde__m512 a) {
  return join256(_mm256_cvtps_epi32(half(a, 0)), _mm256_cvtps_epi32(half(a, 1)));
}
inline simde__m512 mm512_cvtepi32_ps(simde__m512i a) {
  return join256(_mm256_cvtepi32_ps(half(a, 0)), _mm256_cvtepi32_ps(half(a, 1)));
}
inline simde__m512i mm512_cvtepu16_epi32(__m256i a) {
  return join256(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(a)),
                 _mm256_cvtepu16_epi32(_mm256_extracti128_si256(a, 1)));
}
inline simde__m512d mm512_cvtps_pd(__m256 a) {
  const __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(a)), hi = _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1));
  simde__m512d r;
  put_halves(&r, &lo, &hi);
  return r;
}
inline __m256 mm512_extractf32x8_ps(simde__m512 a, int imm) { return half(a, imm & 1); }
// Truncation to the low 16 bits (vpmovdw).
inline __m256i mm512_cvtepi32_epi16(simde__m512i a) {
  const Lanes<uint32_t, 16> x = lanes<uint32_t, 16>(a);
  Lanes<uint16_t, 16> r;
  for (int i = 0; i < 16; ++i) r.v[i] = static_cast<uint16_t>(x.v[i]);
  return vector_of<__m256i>(r);
}
// Unsigned saturation to 8 bits (vpmovusdb).
inline __m128i mm512_cvtusepi32_epi8(simde__m512i a) {
  const Lanes<uint32_t, 16> x = lanes<uint32_t, 16>(a);
  Lanes<uint8_t, 16> r;
  for (int i = 0; i < 16; ++i) r.v[i] = static_cast<uint8_t>(x.v[i] > 255u ? 255u : x.v[i]);
  return vector_of<__m128i>(r);
}
// vgatherdps with all lanes active.
inline simde__m512 mm512_i32gather_ps(simde__m512i idx, const void* base, int scale) {
  const Lanes<int32_t, 16> i = lanes<int32_t, 16>(idx);
  Lanes<float, 16> r;
  const unsigned char* b = static_cast<const unsigned char*>(base);
  for (int k = 0; k < 16; ++k) std::memcpy(&r.v[k], b + static_cast<int64_t>(i.v[k]) * scale, sizeof(float));
  return vector_of<simde__m512>(r);
}

// AVX512_BF16's reading of an f32 denormal: zero of its sign.
inline float flush_denormal(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }

// vcvtneps2bf16 on one lane: round to nearest even; a denormal reads as zero of its sign; a NaN keeps
// its top mantissa bits with the quiet bit set.
inline uint16_t cvtne_bf16(float f) {
  f = flush_denormal(f);
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
inline __m256bh mm512_cvtneps_pbh(simde__m512 a) {
  const Lanes<float, 16> x = lanes<float, 16>(a);
  Lanes<uint16_t, 16> r;
  for (int i = 0; i < 16; ++i) r.v[i] = cvtne_bf16(x.v[i]);
  return vector_of<__m256bh>(r);
}
// Lanes 0-15 from b, 16-31 from a.
inline __m512bh mm512_cvtne2ps_pbh(simde__m512 a, simde__m512 b) {
  const Lanes<float, 16> x = lanes<float, 16>(a), y = lanes<float, 16>(b);
  Lanes<uint16_t, 32> r;
  for (int i = 0; i < 16; ++i) {
    r.v[i] = cvtne_bf16(y.v[i]);
    r.v[16 + i] = cvtne_bf16(x.v[i]);
  }
  return vector_of<__m512bh>(r);
}

// vscalefps: a * 2^floor(b), rounded once; a denormal a is read as it is and a denormal result kept
// (MXCSR's defaults). SIMDe 0.7.4 flushes both, so exp's denormal results would differ. The special
// cases are the manual's table: a quiet NaN a scaled by +inf is +inf and by -inf +0 (which is what
// exp(-inf) gives on the CPU), a signaling NaN a stays a NaN.
inline float scalef(float a, float b) {
  if (std::isnan(a)) {
    uint32_t bits;
    std::memcpy(&bits, &a, sizeof bits);
    const bool quiet = (bits & 0x00400000u) != 0;
    if (quiet && std::isinf(b)) return b > 0 ? std::numeric_limits<float>::infinity() : 0.0f;
    return a + 0.0f;
  }
  if (std::isnan(b)) return b + 0.0f;
  if (std::isinf(b)) {
    if (b > 0) return (a == 0.0f) ? std::numeric_limits<float>::quiet_NaN() : a * b;
    return std::isinf(a) ? std::numeric_limits<float>::quiet_NaN() : std::copysign(0.0f, a);
  }
  const float n = std::floor(b);
  return std::ldexp(a, n > 1000.0f ? 1000 : n < -1000.0f ? -1000 : static_cast<int>(n));
}
inline simde__m512 mm512_scalef_ps(simde__m512 a, simde__m512 b) {
  const Lanes<float, 16> x = lanes<float, 16>(a), y = lanes<float, 16>(b);
  Lanes<float, 16> r;
  for (int i = 0; i < 16; ++i) r.v[i] = scalef(x.v[i], y.v[i]);
  return vector_of<simde__m512>(r);
}

// vdpbf16ps, as Intel defines it and kernels/gemm_tile_paths.h's scalar model computes it: per f32 lane
// i, acc = (acc + a[2i+1] b[2i+1]) + a[2i] b[2i], each sum rounded once, denormal inputs and sums flushed
// to zero. Each product enters its sum exactly: a product below f32's range still gives the sum its sign
// (+0 + -2^-200 is -0 on the CPU, where a product rounded to f32 first would give +0). The products of
// two bf16 values are exact in double, and so is a sum of one with an f32 whenever it can round
// otherwise than the exact sum (16 product bits reach at most 41 bits below the f32's top): one rounding
// to f32. (SIMDe 0.7.4 adds the even product first and keeps denormals.)
inline double bf16_value(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return flush_denormal(f);
}
inline float add_product(float acc, double product) {
  return flush_denormal(static_cast<float>(static_cast<double>(flush_denormal(acc)) + product));
}
inline simde__m512 mm512_dpbf16_ps(simde__m512 src, __m512bh a, __m512bh b) {
  Lanes<float, 16> acc = lanes<float, 16>(src);
  const Lanes<uint16_t, 32> x = lanes<uint16_t, 32>(a), y = lanes<uint16_t, 32>(b);
  for (int i = 0; i < 16; ++i) {
    const double odd = bf16_value(x.v[2 * i + 1]) * bf16_value(y.v[2 * i + 1]);
    const double even = bf16_value(x.v[2 * i]) * bf16_value(y.v[2 * i]);
    acc.v[i] = add_product(add_product(acc.v[i], odd), even);
  }
  return vector_of<simde__m512>(acc);
}

// GCC 12's avx512fintrin.h reductions, the same operations in the same order.
inline float mm512_reduce_max_ps(simde__m512 a) {
  const __m256 t3 = _mm256_max_ps(half(a, 1), half(a, 0));
  const __m128 t6 = _mm_max_ps(_mm256_extractf128_ps(t3, 1), _mm256_castps256_ps128(t3));
  const __m128 t8 = _mm_max_ps(t6, _mm_shuffle_ps(t6, t6, _MM_SHUFFLE(1, 0, 3, 2)));
  const __m128 t10 = _mm_max_ps(t8, _mm_shuffle_ps(t8, t8, _MM_SHUFFLE(0, 1, 0, 1)));
  return _mm_cvtss_f32(t10);
}
inline double mm512_reduce_add_pd(simde__m512d a) {
  __m256d lo, hi;
  copy_half(&lo, &a, 0);
  copy_half(&hi, &a, 1);
  const __m256d t3 = _mm256_add_pd(hi, lo);
  const __m128d t6 = _mm_add_pd(_mm256_extractf128_pd(t3, 1), _mm256_castpd256_pd128(t3));
  return _mm_cvtsd_f64(t6) + _mm_cvtsd_f64(_mm_unpackhi_pd(t6, t6));
}

}  // namespace cpuft_emu

#undef _mm512_add_epi32
#define _mm512_add_epi32 cpuft_emu::mm512_add_epi32
#undef _mm512_sub_epi32
#define _mm512_sub_epi32 cpuft_emu::mm512_sub_epi32
#undef _mm512_mullo_epi32
#define _mm512_mullo_epi32 cpuft_emu::mm512_mullo_epi32
#undef _mm512_abs_ps
#define _mm512_abs_ps cpuft_emu::mm512_abs_ps
#define _mm512_mask_loadu_ps cpuft_emu::mm512_mask_loadu_ps
#define _mm512_maskz_loadu_ps cpuft_emu::mm512_maskz_loadu_ps
#define _mm512_mask_storeu_ps cpuft_emu::mm512_mask_storeu_ps
#define _mm512_mask_storeu_epi32 cpuft_emu::mm512_mask_storeu_epi32
#define _mm512_maskz_loadu_epi16 cpuft_emu::mm512_maskz_loadu_epi16
#define _mm256_maskz_loadu_epi16 cpuft_emu::mm256_maskz_loadu_epi16
#define _mm256_mask_storeu_epi16 cpuft_emu::mm256_mask_storeu_epi16
#define _mm_maskz_loadu_epi8 cpuft_emu::mm_maskz_loadu_epi8
#define _mm_cmpeq_epi8_mask cpuft_emu::mm_cmpeq_epi8_mask
#define _mm512_testn_epi32_mask cpuft_emu::mm512_testn_epi32_mask
#define _mm512_cmpgt_epu32_mask cpuft_emu::mm512_cmpgt_epu32_mask
#define _mm512_cvtps_epi32 cpuft_emu::mm512_cvtps_epi32
#define _mm512_cvtepi32_ps cpuft_emu::mm512_cvtepi32_ps
#define _mm512_cvtepu16_epi32 cpuft_emu::mm512_cvtepu16_epi32
#define _mm512_cvtps_pd cpuft_emu::mm512_cvtps_pd
#define _mm512_extractf32x8_ps cpuft_emu::mm512_extractf32x8_ps
#define _mm512_cvtepi32_epi16 cpuft_emu::mm512_cvtepi32_epi16
#define _mm512_cvtusepi32_epi8 cpuft_emu::mm512_cvtusepi32_epi8
#define _mm512_i32gather_ps cpuft_emu::mm512_i32gather_ps
#define _mm512_cvtneps_pbh cpuft_emu::mm512_cvtneps_pbh
#define _mm512_cvtne2ps_pbh cpuft_emu::mm512_cvtne2ps_pbh
#undef _mm512_scalef_ps
#define _mm512_scalef_ps cpuft_emu::mm512_scalef_ps
#undef _mm512_dpbf16_ps
#define _mm512_dpbf16_ps cpuft_emu::mm512_dpbf16_ps
#define _mm512_reduce_max_ps cpuft_emu::mm512_reduce_max_ps
#define _mm512_reduce_add_pd cpuft_emu::mm512_reduce_add_pd

// AMX: no emulation. The *_amx.cc sources are compiled here too (so that no AVX-512 instruction is left
// in the build), with every tile instruction a call that aborts: the amx level is never supported in
// this build (cpu/isa.cc), so none of them runs.
namespace cpuft_emu {
[[noreturn]] inline void no_amx() { __builtin_trap(); }
}  // namespace cpuft_emu
#undef _tile_loadconfig
#undef _tile_release
#undef _tile_zero
#undef _tile_loadd
#undef _tile_stored
#undef _tile_dpbf16ps
#define _tile_loadconfig(config) ((void)(config), cpuft_emu::no_amx())
#define _tile_release() cpuft_emu::no_amx()
#define _tile_zero(tile) cpuft_emu::no_amx()
#define _tile_loadd(tile, base, stride) ((void)(base), (void)(stride), cpuft_emu::no_amx())
#define _tile_stored(tile, base, stride) ((void)(base), (void)(stride), cpuft_emu::no_amx())
#define _tile_dpbf16ps(c, a, b) cpuft_emu::no_amx()
