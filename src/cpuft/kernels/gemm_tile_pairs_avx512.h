// bf16 values as pair words along k, for the bf16 tile kernels (gemm_tile_avx512.cc, gemm_tile_amx.cc):
// a u32 word holds (x[2p], x[2p + 1]), the even k in the low half, as vdpbf16ps and tdpbf16ps read
// them. AVX-512 code: include only from sources compiled with the AVX-512 flags (*_avx512.cc,
// *_amx.cc), and run it only after the ISA registry's check.
#pragma once

// GCC 12's own avx512fintrin.h trips -W(maybe-)uninitialized on its _mm512_undefined_* helpers.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "cpuft/util/aligned_vector.h"

namespace cpuft::gemm_tile {

// The calling thread's pair-word buffer `slot` (0: B, 1: A, 2: rows on their way to a transpose), at
// least `words` long; grown on demand and kept. One set per thread, shared by both kernels (a call uses
// them only while it runs).
inline uint32_t* pair_scratch(int slot, size_t words) {
  thread_local AlignedVector<uint32_t> buffers[3];
  AlignedVector<uint32_t>& v = buffers[slot];
  if (v.size() < words) v.resize(words);
  return v.data();
}

// The mask of the first `count` lanes (none when count <= 0).
inline __mmask16 first(int64_t count) {
  return static_cast<__mmask16>(count >= 16 ? 0xffff : count <= 0 ? 0 : (1u << count) - 1u);
}

// dst[c * dld + r] = src[r * sld + c] for r < 16, c < cols: a 16 x 16 block of words transposed in
// registers (unpack 32- and 64-bit elements inside 128-bit lanes, then a 4 x 4 transpose of lanes).
inline void transpose16(const uint32_t* src, int64_t sld, uint32_t* dst, int64_t dld, int64_t cols) {
  __m512i r[16], t[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_si512(src + i * sld);
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
  }
  // u[g][q]: lane l holds rows 4g .. 4g + 3 of column 4l + q.
  __m512i u[4][4];
  for (int g = 0; g < 4; ++g) {
    const __m512i* x = t + 4 * g;
    u[g][0] = _mm512_unpacklo_epi64(x[0], x[2]);
    u[g][1] = _mm512_unpackhi_epi64(x[0], x[2]);
    u[g][2] = _mm512_unpacklo_epi64(x[1], x[3]);
    u[g][3] = _mm512_unpackhi_epi64(x[1], x[3]);
  }
  for (int q = 0; q < 4; ++q) {
    const __m512i a = _mm512_shuffle_i32x4(u[0][q], u[1][q], 0x88), b = _mm512_shuffle_i32x4(u[2][q], u[3][q], 0x88);
    const __m512i c = _mm512_shuffle_i32x4(u[0][q], u[1][q], 0xdd), d = _mm512_shuffle_i32x4(u[2][q], u[3][q], 0xdd);
    const __m512i col[4] = {_mm512_shuffle_i32x4(a, b, 0x88), _mm512_shuffle_i32x4(c, d, 0x88),
                            _mm512_shuffle_i32x4(a, b, 0xdd), _mm512_shuffle_i32x4(c, d, 0xdd)};
    for (int l = 0; l < 4; ++l)
      if (4 * l + q < cols) _mm512_storeu_si512(dst + (4 * l + q) * dld, col[l]);
  }
}

inline __mmask32 first32(int64_t count) {
  return static_cast<__mmask32>(count >= 32 ? 0xffffffffu : count <= 0 ? 0 : (1u << count) - 1u);
}

// A row of k bf16 values as its kp = ceil(k / 2) pair words (zero past k).
inline void pack_row(const uint16_t* x, int64_t k, uint32_t* out) {
  const int64_t kp = (k + 1) / 2;
  for (int64_t p = 0; p < kp; p += 16)
    _mm512_mask_storeu_epi32(out + p, first(kp - p), _mm512_maskz_loadu_epi16(first32(k - 2 * p), x + 2 * p));
}

// Words (x[2p][i], x[2p + 1][i]) for i < count: rows lo and hi (null past an odd k) interleaved.
inline __m512i pair_rows(const uint16_t* lo, const uint16_t* hi, __mmask16 mk) {
  const __m512i l = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mk, lo));
  if (!hi) return l;
  return _mm512_or_si512(l, _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mk, hi)), 16));
}

// x[0, words) = 0.
inline void zero(uint32_t* x, int64_t words) {
  if (words > 0) std::memset(x, 0, static_cast<size_t>(words) * sizeof(uint32_t));
}

// Words (x[2p][i], x[2p + 1][i]) of a matrix stored [k, cols] (row stride ld), for p < kq and i < cols16
// (a multiple of 16), zero past k and cols, sixteen columns at a time: pair row p's columns i .. i + 15 at
// w + p * row_stride + i / 16 * panel_stride (plain pair rows: row_stride cols16, panel_stride 16).
inline void pair_rows_of(const uint16_t* x, int64_t ld, int64_t k, int64_t cols, int64_t kq, int64_t cols16,
                         int64_t row_stride, int64_t panel_stride, uint32_t* w) {
  for (int64_t p = 0; p < kq; ++p) {
    const uint16_t* lo = 2 * p < k ? x + 2 * p * ld : nullptr;
    const uint16_t* hi = 2 * p + 1 < k ? lo + ld : nullptr;
    for (int64_t i = 0; i < cols16; i += 16)
      _mm512_storeu_si512(w + p * row_stride + i / 16 * panel_stride,
                          lo ? pair_rows(lo + i, hi ? hi + i : nullptr, first(cols - i)) : _mm512_setzero_si512());
  }
}

// The pair words of `rows` rows of k bf16 values (row stride ld), as out[r * kq + p], zero past k and
// from `rows` to rows16.
inline void row_pairs_of(const uint16_t* x, int64_t ld, int64_t rows, int64_t k, int64_t rows16, int64_t kq,
                         uint32_t* out) {
  const int64_t kp = (k + 1) / 2;
  for (int64_t r = 0; r < rows; ++r) {
    pack_row(x + r * ld, k, out + r * kq);
    zero(out + r * kq + kp, kq - kp);
  }
  zero(out + rows * kq, (rows16 - rows) * kq);
}

}  // namespace cpuft::gemm_tile
