#include "cpuft/kernels/weight_blocks.h"

#include <emmintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "cpuft/tensor/bf16.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

// A tile is at least this many of W's columns wide: a row of it is converted by one call.
constexpr int64_t kMinTileCols = 128;
// The tiles of the layouts oneDNN picks (at most 96 x 128 values) fit a buffer of this many on each
// thread's stack: the optimizer step allocates nothing. Larger blocks would take a heap buffer.
constexpr int64_t kStackTile = 96 * 128;

void check_layout(const PairBlockLayout& l, int64_t rows, int64_t cols, const char* what) {
  if (l.row_block <= 0 || l.row_block % 2 != 0 || l.col_block <= 0 || l.padded_rows < rows || l.padded_cols < cols ||
      l.padded_rows % l.row_block != 0 || l.padded_cols % l.col_block != 0)
    fail_internal("weight blocks: the ", what, " layout (blocks ", l.row_block, " x ", l.col_block, ", padded ",
                  l.padded_rows, " x ", l.padded_cols, ") does not fit a ", rows, " x ", cols, " operand");
}

// One tile of W: rows [n0, n0 + rows), columns [k0, k0 + cols) as bf16, row-major with `cols` per row,
// zero past W's N rows and K columns.
struct Tile {
  uint16_t* v = nullptr;
  int64_t n0 = 0, k0 = 0, rows = 0, cols = 0;
  const uint16_t* row(int64_t r) const { return v + r * cols; }

  void fill(const void* w, DType w_type, int64_t N, int64_t K) {
    const int64_t width = std::clamp<int64_t>(K - k0, 0, cols);
    for (int64_t r = 0; r < rows; ++r) {
      uint16_t* dst = v + r * cols;
      const int64_t n = n0 + r;
      const int64_t have = n < N ? width : 0;
      if (have > 0) {
        if (w_type == DType::kF32)
          f32_to_bf16_array(static_cast<const float*>(w) + n * K + k0, dst, have);
        else
          std::memcpy(dst, static_cast<const uint16_t*>(w) + n * K + k0, static_cast<size_t>(have) * 2);
      }
      std::fill(dst + have, dst + cols, uint16_t{0});
    }
  }
};

// The copies are written with streaming stores, 16 bytes at a time, where the blocks allow it: whole
// cache lines that are not read first (they are written whole) and that the products read only in the
// next step (a weight's), or right after by a product over megabytes of them (an activation's, for its
// weight gradient: cached stores made that product no faster on Zen 4). Otherwise (a destination not
// 16-byte aligned, blocks of other sizes) one 4-byte pair at a time.
bool whole_vectors(const uint16_t* dst, const PairBlockLayout& l) {
  return reinterpret_cast<uintptr_t>(dst) % 16 == 0 && l.row_block_stride % 8 == 0 && l.col_block_stride % 8 == 0 &&
         l.row_block % 8 == 0 && l.col_block % 8 == 0;
}

inline __m128i load16(const uint16_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline void stream16(uint16_t* p, __m128i v) { _mm_stream_si128(reinterpret_cast<__m128i*>(p), v); }

// The forward's operand is W^T [K, N]: its rows are W's columns. A block's pair (k, k + 1) of one n is
// W[n][k], W[n][k + 1]: two adjacent values of the tile's row, moved as one 4-byte unit; the block is the
// transpose of the tile's (col_block x row_block / 2) units.
void write_forward(uint16_t* dst, const PairBlockLayout& l, const Tile& t) {
  const bool vectors = whole_vectors(dst, l);
  const int64_t pairs = l.row_block / 2, cols = l.col_block, stride = t.cols;
  for (int64_t k = t.k0; k < std::min(t.k0 + t.cols, l.padded_rows); k += l.row_block)
    for (int64_t n = t.n0; n < std::min(t.n0 + t.rows, l.padded_cols); n += l.col_block) {
      uint16_t* out = dst + pair_block_offset(l, k, n);
      const uint16_t* in = t.row(n - t.n0) + (k - t.k0);
      if (!vectors) {
        for (int64_t p = 0; p < pairs; ++p)
          for (int64_t j = 0; j < cols; ++j) std::memcpy(out + 2 * (p * cols + j), in + j * stride + 2 * p, 4);
        continue;
      }
      // 4 x 4 units at a time: in's rows j..j+3, units p..p+3 become out's rows p..p+3, units j..j+3.
      for (int64_t p = 0; p < pairs; p += 4)
        for (int64_t j = 0; j < cols; j += 4) {
          const uint16_t* i = in + j * stride + 2 * p;
          const __m128i r0 = load16(i), r1 = load16(i + stride), r2 = load16(i + 2 * stride),
                        r3 = load16(i + 3 * stride);
          const __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpackhi_epi32(r0, r1);
          const __m128i t2 = _mm_unpacklo_epi32(r2, r3), t3 = _mm_unpackhi_epi32(r2, r3);
          uint16_t* o = out + 2 * (p * cols + j);
          stream16(o, _mm_unpacklo_epi64(t0, t2));
          stream16(o + 2 * cols, _mm_unpackhi_epi64(t0, t2));
          stream16(o + 4 * cols, _mm_unpacklo_epi64(t1, t3));
          stream16(o + 6 * cols, _mm_unpackhi_epi64(t1, t3));
        }
    }
}

// Backward-data's operand is W [N, K] itself: a block's pair (n, n + 1) of one k is W[n][k], W[n + 1][k],
// two of the tile's rows interleaved.
void write_backward(uint16_t* dst, const PairBlockLayout& l, const Tile& t) {
  const bool vectors = whole_vectors(dst, l);
  const int64_t cols = l.col_block;
  for (int64_t n = t.n0; n < std::min(t.n0 + t.rows, l.padded_rows); n += l.row_block)
    for (int64_t k = t.k0; k < std::min(t.k0 + t.cols, l.padded_cols); k += l.col_block)
      for (int64_t p = 0; p < l.row_block / 2; ++p) {
        const uint16_t* r0 = t.row(n - t.n0 + 2 * p) + (k - t.k0);
        const uint16_t* r1 = r0 + t.cols;
        uint16_t* o = dst + pair_block_offset(l, n, k) + p * 2 * cols;
        if (!vectors) {
          for (int64_t j = 0; j < cols; ++j) o[2 * j] = r0[j], o[2 * j + 1] = r1[j];
          continue;
        }
        for (int64_t j = 0; j < cols; j += 8) {
          const __m128i a = load16(r0 + j), b = load16(r1 + j);
          stream16(o + 2 * j, _mm_unpacklo_epi16(a, b));
          stream16(o + 2 * j + 8, _mm_unpackhi_epi16(a, b));
        }
      }
}

}  // namespace

void write_weight_blocks(uint16_t* forward, const PairBlockLayout* fwd, uint16_t* backward, const PairBlockLayout* bwd,
                         const void* w, DType w_type, int64_t N, int64_t K) {
  if (!forward) fwd = nullptr;
  if (!backward) bwd = nullptr;
  if (!fwd && !bwd) return;
  if (w_type != DType::kF32 && w_type != DType::kBf16)
    fail_internal("write_weight_blocks: weight dtype ", dtype_name(w_type), ", expected f32 or bf16");
  if (fwd) check_layout(*fwd, K, N, "forward");
  if (bwd) check_layout(*bwd, N, K, "backward-data");
  // A tile holds whole blocks of both layouts: its rows (W's) a multiple of the forward's column block
  // and backward-data's row block, its columns of the forward's row block and backward-data's column block.
  const int64_t tile_rows = std::lcm(fwd ? fwd->col_block : 1, bwd ? bwd->row_block : 1);
  int64_t tile_cols = std::lcm(fwd ? fwd->row_block : 1, bwd ? bwd->col_block : 1);
  tile_cols *= std::max<int64_t>(1, kMinTileCols / tile_cols);
  const int64_t n_end = std::max(fwd ? fwd->padded_cols : 0, bwd ? bwd->padded_rows : 0);
  const int64_t k_end = std::max(fwd ? fwd->padded_rows : 0, bwd ? bwd->padded_cols : 0);
  const int64_t n_tiles = (n_end + tile_rows - 1) / tile_rows, k_tiles = (k_end + tile_cols - 1) / tile_cols;
#pragma omp parallel if (n_tiles * k_tiles > 1 && !omp_in_parallel())
  {
    alignas(64) uint16_t on_stack[kStackTile];
    std::vector<uint16_t> on_heap(tile_rows * tile_cols > kStackTile ? static_cast<size_t>(tile_rows * tile_cols) : 0);
    Tile t;
    t.rows = tile_rows, t.cols = tile_cols;
    t.v = on_heap.empty() ? on_stack : on_heap.data();
#pragma omp for collapse(2) schedule(static)
    for (int64_t nt = 0; nt < n_tiles; ++nt)
      for (int64_t kt = 0; kt < k_tiles; ++kt) {
        t.n0 = nt * tile_rows, t.k0 = kt * tile_cols;
        t.fill(w, w_type, N, K);
        if (fwd) write_forward(forward, *fwd, t);
        if (bwd) write_backward(backward, *bwd, t);
      }
    _mm_sfence();  // the streaming stores done before the threads part
  }
}

void write_pair_blocks(uint16_t* dst, const PairBlockLayout& l, const uint16_t* src, int64_t rows, int64_t cols) {
  write_weight_blocks(nullptr, nullptr, dst, &l, src, DType::kBf16, rows, cols);
}

void read_pair_blocks(uint16_t* dst, const PairBlockLayout& l, const uint16_t* src, int64_t rows, int64_t cols,
                      bool transposed) {
  check_layout(l, rows, cols, "read");
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) dst[transposed ? c * rows + r : r * cols + c] = src[pair_block_offset(l, r, c)];
}

}  // namespace cpuft
