// gemm_weight_grad.h's product on AMX. Compiled with AVX-512, BF16 and AMX flags.
//
// Layouts, for a chunk of the tokens t0 .. t0 + rows (pairs = rows / 2 rounded up to 16; the pairs past
// the chunk's rows are zero, and add exact zeros):
//   B: x's pair words (x[t0 + 2p][k], x[t0 + 2p + 1][k]) in panels of 16 columns, panel k / 16 holding
//      its `pairs` rows of 16 words back to back: a B tile (16 pair rows of a panel) is 1 KiB in one piece.
//   A: per block of 32 rows of dW (columns n0 .. n0 + 31 of dy), the words (dy[t0 + 2p][n], dy[t0 + 2p +
//      1][n]) as a[n - n0][p]: dy's pair rows for those columns, transposed 16 x 16 words at a time.
#include <omp.h>

#include <algorithm>

#include "cpuft/kernels/amx_tiles.h"
#include "cpuft/kernels/gemm_tile_pairs_avx512.h"
#include "cpuft/kernels/gemm_weight_grad.h"
#include "cpuft/util/aligned_vector.h"

namespace cpuft::gemm_weight_grad {
namespace {

using amx::kTileRows;
using gemm_tile::pair_rows_of;
using gemm_tile::transpose16;

constexpr int64_t kChunk = 256;     // tokens per chunk
constexpr int64_t kColumns = 1536;  // columns of dW per pass over the tokens: B at most 768 KiB a chunk
constexpr int64_t kGroup = 256;     // columns of dW per work item, which the threads share out
constexpr int64_t kBlock = 32;      // rows and columns of a dW block: 2 x 2 f32 tiles

// B's panels for the chunk (rows t0 .. end of x), the panels shared out among the threads (inside the
// parallel region).
void pack_b(const uint16_t* x, int64_t K, int64_t k0, int64_t k1, int64_t t0, int64_t end, int64_t pairs, uint32_t* bp) {
#pragma omp for schedule(static)
  for (int64_t panel = 0; panel < (k1 - k0) / kTileRows; ++panel)
    pair_rows_of(x + t0 * K + k0 + panel * kTileRows, K, end - t0, kTileRows, pairs, kTileRows, kTileRows, 0,
                 bp + panel * pairs * kTileRows);
}

// A for dW rows n0 .. n0 + 31: ap[r * pairs + p]; rows16 is a 16 x 32 word staging block (16 pair rows of
// the 32 columns, then transposed).
void pack_a(const uint16_t* dy, int64_t N, int64_t n0, int64_t t0, int64_t end, int64_t pairs, uint32_t* rows16,
            uint32_t* ap) {
  for (int64_t p0 = 0; p0 < pairs; p0 += kTileRows) {
    pair_rows_of(dy + (t0 + 2 * p0) * N + n0, N, end - t0 - 2 * p0, kBlock, kTileRows, kBlock, kBlock, kTileRows,
                 rows16);
    for (int64_t r = 0; r < kBlock; r += kTileRows) transpose16(rows16 + r, kBlock, ap + r * pairs + p0, pairs, kTileRows);
  }
}

// dW's block at (n0, k0) (+)= the chunk's A rows times B's panels k0 / 16 and k0 / 16 + 1.
void block(float* dw, int64_t K, int64_t k0, const uint32_t* ap, const uint32_t* bp, int64_t pairs, bool load) {
  // bp: the panels from column k0 on
  const int64_t ld = K * static_cast<int64_t>(sizeof(float));
  float* c = dw + k0;
  if (load) {
    _tile_loadd(0, c, ld);
    _tile_loadd(1, c + kTileRows, ld);
    _tile_loadd(2, c + kTileRows * K, ld);
    _tile_loadd(3, c + kTileRows * K + kTileRows, ld);
  } else {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
  }
  const uint32_t *a0 = ap, *a1 = ap + kTileRows * pairs;
  const uint32_t *b0 = bp, *b1 = b0 + kTileRows * pairs;
  const int64_t a_stride = pairs * static_cast<int64_t>(sizeof(uint32_t)), b_stride = 64;
  for (int64_t p = 0; p < pairs; p += kTileRows) {
    _tile_loadd(4, a0 + p, a_stride);
    _tile_loadd(5, a1 + p, a_stride);
    _tile_loadd(6, b0 + p * kTileRows, b_stride);
    _tile_loadd(7, b1 + p * kTileRows, b_stride);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  _tile_stored(0, c, ld);
  _tile_stored(1, c + kTileRows, ld);
  _tile_stored(2, c + kTileRows * K, ld);
  _tile_stored(3, c + kTileRows * K + kTileRows, ld);
}

}  // namespace

void amx(int64_t M, int64_t N, int64_t K, const uint16_t* dy, const uint16_t* x, float* dw, bool accumulate) {
  constexpr int64_t kMaxPairs = kChunk / 2;
  // B's panels for one chunk and column range, shared by the threads; kept by the calling thread (no
  // allocation per call).
  thread_local AlignedVector<uint32_t> panels;
  const int64_t panel_words = std::min(K, kColumns) * kMaxPairs;
  if (panels.size() < static_cast<size_t>(panel_words)) panels.resize(static_cast<size_t>(panel_words));
  uint32_t* const bp = panels.data();
#pragma omp parallel
  {
    thread_local AlignedVector<uint32_t> a_words(kBlock * kMaxPairs + kTileRows * kBlock);
    uint32_t *const ap = a_words.data(), *const rows16 = ap + kBlock * kMaxPairs;
    _tile_loadconfig(&amx::whole_tiles());  // tiles 0-3 the dW block, 4-5 A, 6-7 B
    for (int64_t c0 = 0; c0 < K; c0 += kColumns) {
      const int64_t c1 = std::min(K, c0 + kColumns), groups = (c1 - c0 + kGroup - 1) / kGroup;
      for (int64_t t0 = 0; t0 < M; t0 += kChunk) {
        const int64_t end = std::min(M, t0 + kChunk);
        const int64_t pairs = ((end - t0 + 1) / 2 + kTileRows - 1) / kTileRows * kTileRows;
        pack_b(x, K, c0, c1, t0, end, pairs, bp);  // ends at the omp for's barrier: B whole before any block
        int64_t packed = -1;                       // the dW rows whose A this thread holds
#pragma omp for collapse(2) schedule(static)
        for (int64_t n0 = 0; n0 < N; n0 += kBlock)
          for (int64_t g = 0; g < groups; ++g) {
            if (packed != n0) pack_a(dy, N, n0, t0, end, pairs, rows16, ap);
            packed = n0;
            for (int64_t k0 = c0 + g * kGroup; k0 < std::min(c1, c0 + (g + 1) * kGroup); k0 += kBlock)
              block(dw + n0 * K, K, k0, ap, bp + (k0 - c0) * pairs, pairs, accumulate || t0 > 0);
          }  // and its barrier: no thread packs the next B while another still reads this one
      }
    }
    _tile_release();
  }
}

}  // namespace cpuft::gemm_weight_grad
