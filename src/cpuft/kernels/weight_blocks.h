// A linear layer's bf16 weight in the blocked layout of oneDNN's bf16 products (AVX512_BF16, AMX), written
// from its row-major rows by cpuft: both of a weight's copies (the forward's and backward-data's) in one
// pass over it, each element rounded once. kernels/gemm.h block_weight is the entry point; the layout
// itself comes from oneDNN (gemm_primitives.cc reads it off the product's choice).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpuft/tensor/dtype.h"

namespace cpuft {

// A bf16 [rows, cols] operand in blocks of row_block x col_block values (oneDNN's "BA16a64b2a" and its
// kin: 16a, 64b, 2a): inside a block, each two rows' values of one column are adjacent, the column pairs
// in order, then the next two rows. Element (r, c) sits at
//   (r / row_block) * row_block_stride + (c / col_block) * col_block_stride
//     + (r % row_block) / 2 * (2 * col_block) + (c % col_block) * 2 + r % 2
// (in elements). Rows and columns past the operand's, up to padded_rows x padded_cols, hold zeros.
struct PairBlockLayout {
  int64_t row_block = 0, col_block = 0;                // row_block even
  int64_t row_block_stride = 0, col_block_stride = 0;  // elements from a block to the next
  int64_t padded_rows = 0, padded_cols = 0;            // multiples of the blocks
  size_t bytes = 0;                                    // the whole operand
};

// The offset in elements of (r, c) in `l` (the formula above).
inline int64_t pair_block_offset(const PairBlockLayout& l, int64_t r, int64_t c) {
  return r / l.row_block * l.row_block_stride + c / l.col_block * l.col_block_stride +
         r % l.row_block / 2 * (2 * l.col_block) + c % l.col_block * 2 + r % 2;
}

// W [N, K] row-major (f32, rounded to nearest even with f32_to_bf16's bits, or bf16) into
//   forward (nullable): W^T, a [K, N] operand in layout *fwd (what x W^T reads);
//   backward (nullable): W, an [N, K] operand in layout *bwd (what dy W reads);
// padding included. Each of W's values is read once for both; tiles of W run on the OpenMP threads when
// called outside a parallel region. The destinations are 4-byte aligned.
void write_weight_blocks(uint16_t* forward, const PairBlockLayout* fwd, uint16_t* backward, const PairBlockLayout* bwd,
                         const void* w, DType w_type, int64_t N, int64_t K);

// src, a bf16 [rows, cols] operand stored row-major, into layout l at dst (padding zeros, 4-byte aligned):
// write_weight_blocks' backward-data copy of any such operand (the products' activations too).
void write_pair_blocks(uint16_t* dst, const PairBlockLayout& l, const uint16_t* src, int64_t rows, int64_t cols);
// dst = the [rows, cols] operand stored in layout l at src (its padding left out), dense: row-major, or
// stored transposed ([cols, rows] row-major) where `transposed`.
void read_pair_blocks(uint16_t* dst, const PairBlockLayout& l, const uint16_t* src, int64_t rows, int64_t cols,
                      bool transposed);

}  // namespace cpuft
