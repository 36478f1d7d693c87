// tile_matmul_bf16's products as AVX512_BF16 dot products (vdpbf16ps): 16 f32 accumulators per
// vector, each adding one pair of bf16 products per instruction. Compiled with AVX-512 and BF16
// flags; entered only after tile_matmul_bf16_native().
//
// Both operands (bf16, uint16_t storage) are first packed into bf16 pairs along k (u32 words: the low
// half the even k, the high half the odd one; a zero completes an odd k): B as bp[p][j] (16 columns
// per vector, the columns padded to a multiple of 16 with zeros) and A as ap[i][p] (or ap[p][i] when
// A is read transposed). A row of bf16 values along k is its pair words already, so an A read as
// stored with an even k and row stride is not copied at all; rows 2p and 2p + 1 along the other axis
// are interleaved. A 6 x 64 block of C then lives in 24 registers while p runs
// over the pairs: each step loads four vectors of B and broadcasts one word of A per row; each output
// is stored as f32 or as bf16.
// GCC 12's own avx512fintrin.h trips -W(maybe-)uninitialized on its _mm512_undefined_* helpers.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "cpuft/kernels/gemm_tile_pairs_avx512.h"
#include "cpuft/kernels/gemm_tile_paths.h"
#include "cpuft/tensor/bf16_round_avx512.h"

namespace cpuft::gemm_tile {
namespace {

// A pair word of A as the kernel reads it: packed, or straight from the caller's bf16 rows.
typedef uint32_t __attribute__((may_alias)) Word;

constexpr int kRows = 6;     // rows of C per block
constexpr int kVectors = 4;  // vectors of 16 columns per block

// bp[p * np + j] = (op(B)[2p][j], op(B)[2p + 1][j]), zero past n and past k.
void pack_b(const uint16_t* b, int64_t ldb, bool trans_b, int64_t k, int64_t n, uint32_t* bp, int64_t np) {
  const int64_t kp = (k + 1) / 2;
  if (!trans_b) {  // B [k, n]: rows 2p and 2p + 1 interleaved
    pair_rows_of(b, ldb, k, n, kp, np, np, 16, bp);
    return;
  }
  // B stored [n, k]: row j holds the pairs of column j. Sixteen rows at a time are packed into
  // pairs (16 x kq words) and transposed into bp 16 x 16 words at a time.
  const int64_t kq = (kp + 15) / 16 * 16;
  uint32_t* rows = pair_scratch(2, static_cast<size_t>(16 * kq));
  for (int64_t j0 = 0; j0 < np; j0 += 16) {
    row_pairs_of(b + j0 * ldb, ldb, std::clamp<int64_t>(n - j0, 0, 16), k, 16, kq, rows);
    for (int64_t p0 = 0; p0 < kp; p0 += 16) transpose16(rows + p0, kq, bp + p0 * np + j0, np, std::min<int64_t>(16, kp - p0));
  }
}

// op(A) packed: ap[i * kp + p] (row stride kp, pair stride 1) when A is [m, k], or ap[p * m + i]
// (row stride 1, pair stride m) when A is stored [k, m] and read transposed.
void pack_a(const uint16_t* a, int64_t lda, bool trans_a, int64_t m, int64_t k, uint32_t* ap) {
  const int64_t kp = (k + 1) / 2;
  if (!trans_a) {
    for (int64_t i = 0; i < m; ++i) pack_row(a + i * lda, k, ap + i * kp);
    return;
  }
  for (int64_t p = 0; p < kp; ++p) {
    const uint16_t* lo = a + 2 * p * lda;
    const uint16_t* hi = 2 * p + 1 < k ? lo + lda : nullptr;
    for (int64_t i = 0; i < m; i += 16) {
      const __mmask16 mk = first(m - i);
      _mm512_mask_storeu_epi32(ap + p * m + i, mk, pair_rows(lo + i, hi ? hi + i : nullptr, mk));
    }
  }
}

inline __m512 dot(__m512 acc, __m512i a, __m512i b) {
  return _mm512_dpbf16_ps(acc, reinterpret_cast<__m512bh&>(a), reinterpret_cast<__m512bh&>(b));
}

// C[R rows, V vectors] = alpha * sum over pairs; the last vector stores `last` columns.
template <int R, int V>
void block(const Word* ap, int64_t a_row, int64_t a_pair, const uint32_t* bp, int64_t np, int64_t kp, float alpha,
           void* c, int64_t ldc, int last, TileStore store) {
  __m512 acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kp; ++p) {
    __m512i bv[V];
    for (int v = 0; v < V; ++v) bv[v] = _mm512_loadu_si512(bp + p * np + 16 * v);
    for (int r = 0; r < R; ++r) {
      const __m512i av = _mm512_set1_epi32(static_cast<int>(ap[r * a_row + p * a_pair]));
      for (int v = 0; v < V; ++v) acc[r][v] = dot(acc[r][v], av, bv[v]);
    }
  }
  const __m512 s = _mm512_set1_ps(alpha);
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) {
      const __m512 y = _mm512_mul_ps(acc[r][v], s);
      const __mmask16 m = v + 1 == V ? first(last) : __mmask16(0xffff);
      const int64_t at = r * ldc + 16 * v;
      if (store == TileStore::kBf16)
        _mm256_mask_storeu_epi16(static_cast<uint16_t*>(c) + at, m, round16(_mm512_castps_si512(y)));
      else
        _mm512_mask_storeu_ps(static_cast<float*>(c) + at, m, y);
    }
}

using Block = void (*)(const Word*, int64_t, int64_t, const uint32_t*, int64_t, int64_t, float, void*, int64_t,
                       int, TileStore);

template <int R>
constexpr Block block_of(int v) {
  return v == 1 ? block<R, 1> : v == 2 ? block<R, 2> : v == 3 ? block<R, 3> : block<R, 4>;
}

Block block_for(int rows, int vectors) {
  switch (rows) {
    case 1: return block_of<1>(vectors);
    case 2: return block_of<2>(vectors);
    case 3: return block_of<3>(vectors);
    case 4: return block_of<4>(vectors);
    case 5: return block_of<5>(vectors);
    default: return block_of<6>(vectors);
  }
}

}  // namespace

void bf16_avx512(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                 int64_t lda, const uint16_t* b, int64_t ldb, void* c, int64_t ldc, TileStore store) {
  const int64_t kp = (k + 1) / 2, np = (n + 15) / 16 * 16;
  uint32_t* bp = pair_scratch(0, static_cast<size_t>(kp * np));
  pack_b(b, ldb, trans_b, k, n, bp, np);
  // A read as stored, with k and the row stride even: each row already is its pair words.
  const bool pairs_as_stored = !trans_a && k % 2 == 0 && lda % 2 == 0 && reinterpret_cast<uintptr_t>(a) % 4 == 0;
  const Word* ap = reinterpret_cast<const Word*>(a);
  int64_t a_row = lda / 2, a_pair = 1;
  if (!pairs_as_stored) {
    uint32_t* packed = pair_scratch(1, static_cast<size_t>(m * kp));
    pack_a(a, lda, trans_a, m, k, packed);
    ap = packed;
    a_row = trans_a ? 1 : kp, a_pair = trans_a ? m : 1;
  }
  const size_t c_size = store == TileStore::kBf16 ? sizeof(uint16_t) : sizeof(float);
  for (int64_t j = 0; j < n; j += 16 * kVectors) {
    const int64_t cols = std::min<int64_t>(16 * kVectors, n - j);
    const int vectors = static_cast<int>((cols + 15) / 16);
    const int last = static_cast<int>(cols - 16 * (vectors - 1));
    for (int64_t i = 0; i < m; i += kRows) {
      const int rows = static_cast<int>(std::min<int64_t>(kRows, m - i));
      char* ci = static_cast<char*>(c) + static_cast<size_t>(i * ldc + j) * c_size;
      block_for(rows, vectors)(ap + i * a_row, a_row, a_pair, bp + j, np, kp, alpha, ci, ldc, last, store);
    }
  }
}

}  // namespace cpuft::gemm_tile
