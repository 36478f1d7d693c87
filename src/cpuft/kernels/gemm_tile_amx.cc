// tile_matmul_bf16's products on AMX (tdpbf16ps): C is computed in blocks of 32 x 32, four f32 tiles
// of 16 x 16, while k runs over the pairs 16 at a time (two A tiles of 16 rows x 16 pair words, two B
// tiles of 16 pair rows x 16 columns). A k of at most 64 (the attention's scores and their gradient at
// head size 64) keeps a row block's A tiles loaded for the whole row of C, computed 32 x 16 at a time.
// Compiled with AVX-512, BF16 and AMX flags; entered only at the amx kernel level (cpu/isa.h), which
// Linux has granted the tile data.
//
// Both operands are packed into bf16 pair words along k (gemm_tile_pairs_avx512.h), zero-padded to
// whole tiles: A as ap[i][p] (rows to a multiple of 32, pairs to a multiple of 16), B in panels of 16
// columns whose tiles are 1 KiB each in one piece (pairs to a multiple of 16, columns to a multiple of
// 32). The zero pairs add exact zeros. An A read as stored whose k is a multiple of 32 (the q rows of
// the scores at head size 64) is its pair words already: only its last rows, below a whole block, are
// packed. A product that reads A transposed and B as stored, with A the larger, is computed as its
// transpose C^T = B^T A (only B is transposed to pack it; the same bits). Whole f32 blocks at alpha 1
// go from the tiles straight to C; every other block is stored to a 32 x 32 f32 buffer, then scaled by
// alpha (transposed if C^T was computed) and stored as `store` says. Rows and columns past m and n are
// left alone.
#include <algorithm>
#include <cstring>

#include "cpuft/kernels/amx_tiles.h"
#include "cpuft/kernels/gemm_tile_pairs_avx512.h"
#include "cpuft/kernels/gemm_tile_paths.h"
#include "cpuft/tensor/bf16_round_avx512.h"

namespace cpuft::gemm_tile {
namespace {

constexpr int64_t kTile = 16;   // rows of a tile; pair words of an A tile row; columns of a B or C tile
constexpr int64_t kBlock = 32;  // rows and columns of C per block: 2 x 2 tiles

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

// ap[i * kq + p] = (op(A)[i][2p], op(A)[i][2p + 1]) for i < mp, p < kq.
void pack_a(const uint16_t* a, int64_t lda, bool trans_a, int64_t m, int64_t k, int64_t mp, int64_t kq, uint32_t* ap) {
  if (!trans_a) {
    row_pairs_of(a, lda, m, k, mp, kq, ap);
    return;
  }
  // A stored [k, m]: its pair rows (kq x m16 words), transposed 16 x 16 words at a time.
  const int64_t m16 = round_up(m, 16);
  uint32_t* w = pair_scratch(2, static_cast<size_t>(kq * m16));
  pair_rows_of(a, lda, k, m, kq, m16, m16, 16, w);
  for (int64_t i = 0; i < m16; i += 16)
    for (int64_t p = 0; p < kq; p += 16) transpose16(w + p * m16 + i, m16, ap + i * kq + p, kq, 16);
  zero(ap + m16 * kq, (mp - m16) * kq);
}

// B's pair words in column panels of 16, each panel's kq rows of 16 words back to back, so that a B tile
// (16 pair rows of one panel) is 1 KiB in one piece: (op(B)[2p][j], op(B)[2p + 1][j]) at
// bp[b_tile(j, p, kq) + j % 16] for p < kq, j < np (zero past k and n).
int64_t b_tile(int64_t j, int64_t p, int64_t kq) { return j / kTile * kq * kTile + p * kTile; }

void pack_b(const uint16_t* b, int64_t ldb, bool trans_b, int64_t k, int64_t n, int64_t kq, int64_t np, uint32_t* bp) {
  if (!trans_b) {
    // Four panels (64 columns: two whole cache lines of each row) at a time, so that the stores run
    // through four panels' words in order: pair row by pair row over all of a wide B, every 64-byte store
    // went to another of up to 24 panels, kq * 64 bytes apart, and took half of the probabilities' and
    // score gradients' products (dV, dK); one panel at a time read each row's line twice, half of it each
    // time (those products at 384 tokens: 38-39 us one panel at a time, 33-34 four, 35 eight).
    constexpr int64_t kPanels = 4;
    for (int64_t j = 0; j < np; j += kPanels * kTile)
      pair_rows_of(b + j, ldb, k, std::clamp<int64_t>(n - j, 0, kPanels * kTile), kq,
                   std::min(kPanels * kTile, np - j), kTile, kq * kTile, bp + b_tile(j, 0, kq));
    return;
  }
  // B stored [n, k]: sixteen rows at a time as pair words (16 x kq), transposed into their panel.
  uint32_t* rows = pair_scratch(2, static_cast<size_t>(kTile * kq));
  for (int64_t j = 0; j < np; j += kTile) {
    row_pairs_of(b + j * ldb, ldb, std::clamp<int64_t>(n - j, 0, kTile), k, kTile, kq, rows);
    for (int64_t p = 0; p < kq; p += kTile) transpose16(rows + p, kq, bp + b_tile(j, p, kq), kTile, kTile);
  }
}

// C[rows, cols] (row stride ldc, at c) = alpha * out[rows, cols] (row stride kBlock), stored as `store` says.
void store_block(const float* out, int64_t rows, int64_t cols, float alpha, void* c, int64_t ldc, TileStore store) {
  const __m512 s = _mm512_set1_ps(alpha);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; j += 16) {
      const __m512 y = _mm512_mul_ps(_mm512_loadu_ps(out + r * kBlock + j), s);
      const __mmask16 m = first(cols - j);
      const int64_t at = r * ldc + j;
      if (store == TileStore::kBf16)
        _mm256_mask_storeu_epi16(static_cast<uint16_t*>(c) + at, m, round16(_mm512_castps_si512(y)));
      else
        _mm512_mask_storeu_ps(static_cast<float*>(c) + at, m, y);
    }
}

// The C tiles to x (row stride ld floats): two rows of kColumns tiles, tiles 0 .. kColumns - 1 the first
// (a 32 x 32 block: four tiles; a 32 x 16 one: two).
template <int kColumns = 2>
void store_tiles(float* x, int64_t ld) {
  _tile_stored(0, x, ld * 4);
  if constexpr (kColumns == 2) {
    _tile_stored(1, x + kTile, ld * 4);
    _tile_stored(2, x + kTile * ld, ld * 4);
    _tile_stored(3, x + kTile * ld + kTile, ld * 4);
  } else {
    _tile_stored(1, x + kTile * ld, ld * 4);
  }
}

// out (32 x 32, row stride kBlock) transposed into t (the same shape).
void transpose_block(const float* out, float* t) {
  for (int64_t r = 0; r < kBlock; r += kTile)
    for (int64_t q = 0; q < kBlock; q += kTile)
      transpose16(reinterpret_cast<const uint32_t*>(out + r * kBlock + q), kBlock,
                  reinterpret_cast<uint32_t*>(t + q * kBlock + r), kBlock, kTile);
}

// Row block i of C (32 rows, `rows` of them real) for a k of at most 32 * kSteps (kSteps = kq / 16 of 1
// or 2: the attention's scores at head size 64): the block's A tiles (two per 16 pairs) stay loaded for
// the whole row of C, computed 32 x 16 at a time (two C tiles), so each B tile is read once per row
// block and A once, instead of both once per 32 x 32 block. The same tile products in the same order as
// the 32 x 32 blocks', so the same bits. Tiles: C 0-1, B 2-3, A 4-7.
template <int kSteps>
void shallow_row(const char* a0, const char* a1, int64_t a_stride, const uint32_t* bp, int64_t kq, int64_t n,
                 int64_t rows, float alpha, char* ci, int64_t ldc, TileStore store, bool as_accumulated, float* out) {
  const size_t c_size = store == TileStore::kBf16 ? sizeof(uint16_t) : sizeof(float);
  _tile_loadd(4, a0, a_stride);
  _tile_loadd(6, a1, a_stride);
  if constexpr (kSteps == 2) {
    _tile_loadd(5, a0 + kTile * 4, a_stride);
    _tile_loadd(7, a1 + kTile * 4, a_stride);
  }
  for (int64_t j = 0; j < n; j += kTile) {
    _tile_zero(0);
    _tile_zero(1);
    _tile_loadd(2, bp + b_tile(j, 0, kq), kTile * 4);
    if constexpr (kSteps == 2) _tile_loadd(3, bp + b_tile(j, kTile, kq), kTile * 4);
    _tile_dpbf16ps(0, 4, 2);
    _tile_dpbf16ps(1, 6, 2);
    if constexpr (kSteps == 2) {
      _tile_dpbf16ps(0, 5, 3);
      _tile_dpbf16ps(1, 7, 3);
    }
    const int64_t cols = std::min(kTile, n - j);
    char* cij = ci + static_cast<size_t>(j) * c_size;
    if (as_accumulated && rows == kBlock && cols == kTile) {
      store_tiles<1>(reinterpret_cast<float*>(cij), ldc);
      continue;
    }
    store_tiles<1>(out, kBlock);
    store_block(out, rows, cols, alpha, cij, ldc, store);
  }
}

// C = alpha op(A) op(B), or with transposed_c its transpose: C^T stored at c (row stride ldc).
void run(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a, int64_t lda,
         const uint16_t* b, int64_t ldb, void* c, int64_t ldc, TileStore store, bool transposed_c) {
  const int64_t kq = round_up((k + 1) / 2, kTile), np = round_up(n, kBlock), mp = round_up(m, kBlock);
  uint32_t* bp = pair_scratch(0, static_cast<size_t>(kq * np));
  pack_b(b, ldb, trans_b, k, n, kq, np, bp);
  // A read as stored where its rows are whole tiles of pairs (k a multiple of 32, not transposed):
  // only a last block of fewer than 32 rows is packed, zero rows below it. Else A is packed whole.
  const bool a_as_stored = !trans_a && k % (2 * kTile) == 0;
  uint32_t* ap = pair_scratch(1, static_cast<size_t>((a_as_stored ? kBlock : mp) * kq));
  if (!a_as_stored) pack_a(a, lda, trans_a, m, k, mp, kq, ap);
  const size_t c_size = store == TileStore::kBf16 ? sizeof(uint16_t) : sizeof(float);
  alignas(64) float out[kBlock * kBlock], out_t[kBlock * kBlock];
  // f32 C without scaling: whole blocks go from the tiles straight to C.
  const bool as_accumulated = store == TileStore::kF32 && alpha == 1.f && !transposed_c;
  _tile_loadconfig(&amx::whole_tiles());  // tiles 0-3 the C block, 4-5 A, 6-7 B (shallow_row: C 0-1, B 2-3, A 4-7)
  for (int64_t i = 0; i < m; i += kBlock) {
    const char* a0;
    int64_t a_stride;  // bytes
    if (!a_as_stored) {
      a0 = reinterpret_cast<const char*>(ap + i * kq), a_stride = kq * 4;
    } else if (i + kBlock <= m) {
      a0 = reinterpret_cast<const char*>(a + i * lda), a_stride = lda * 2;
    } else {
      row_pairs_of(a + i * lda, lda, m - i, k, kBlock, kq, ap);
      a0 = reinterpret_cast<const char*>(ap), a_stride = kq * 4;
    }
    const char* a1 = a0 + kTile * a_stride;
    if (kq <= 2 * kTile && !transposed_c) {
      const int64_t rows = std::min(kBlock, m - i);
      char* ci = static_cast<char*>(c) + static_cast<size_t>(i * ldc) * c_size;
      if (kq == kTile)
        shallow_row<1>(a0, a1, a_stride, bp, kq, n, rows, alpha, ci, ldc, store, as_accumulated, out);
      else
        shallow_row<2>(a0, a1, a_stride, bp, kq, n, rows, alpha, ci, ldc, store, as_accumulated, out);
      continue;
    }
    for (int64_t j = 0; j < n; j += kBlock) {
      _tile_zero(0);
      _tile_zero(1);
      _tile_zero(2);
      _tile_zero(3);
      for (int64_t p = 0; p < kq; p += kTile) {
        _tile_loadd(4, a0 + p * 4, a_stride);
        _tile_loadd(5, a1 + p * 4, a_stride);
        _tile_loadd(6, bp + b_tile(j, p, kq), kTile * 4);
        _tile_loadd(7, bp + b_tile(j + kTile, p, kq), kTile * 4);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
      }
      const int64_t rows = std::min(kBlock, m - i), cols = std::min(kBlock, n - j);
      if (transposed_c) {
        store_tiles(out, kBlock);
        transpose_block(out, out_t);
        char* cji = static_cast<char*>(c) + static_cast<size_t>(j * ldc + i) * c_size;
        store_block(out_t, cols, rows, alpha, cji, ldc, store);
        continue;
      }
      char* cij = static_cast<char*>(c) + static_cast<size_t>(i * ldc + j) * c_size;
      if (as_accumulated && rows == kBlock && cols == kBlock) {
        store_tiles(reinterpret_cast<float*>(cij), ldc);
        continue;
      }
      store_tiles(out, kBlock);
      store_block(out, rows, cols, alpha, cij, ldc, store);
    }
  }
  _tile_release();
}

}  // namespace

void bf16_amx(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
              int64_t lda, const uint16_t* b, int64_t ldb, void* c, int64_t ldc, TileStore store) {
  // A read transposed is packed through a transpose of all of it. When it is the larger operand and B is
  // read as stored, C^T = B^T A is computed instead: the same pair products in the same order, so the
  // same bits, for a transpose of B and of C's blocks.
  if (trans_a && !trans_b && m > n)
    run(true, false, n, m, k, alpha, b, ldb, a, lda, c, ldc, store, true);
  else
    run(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, c, ldc, store, false);
}

}  // namespace cpuft::gemm_tile
