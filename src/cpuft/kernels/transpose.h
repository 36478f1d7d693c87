// A bf16 matrix copied transposed into a row-major operand: the output gradient dy^T that the weight
// gradient dW = dy^T x reads (kernels/gemm.cc, linear_backward_weight). oneDNN 2.6.3 reads a transposed A
// through its own copy inside the product, slower than a row-major A that cpuft writes first in one pass.
#pragma once

#include <cstdint>

namespace cpuft {

// dst[c * ld + r] = src[r * cols + c]: src [rows, cols] row-major into dst [cols, rows] with row stride ld
// (at least rows; dst's elements from rows to ld in each row are left as they were). On the OpenMP threads
// when called outside a parallel region. Where dst's rows start on cache lines (dst 64-byte aligned, ld a
// multiple of 32), each 32 rows of src go out as whole lines of dst by streaming stores: dst is not read
// first, and is left in memory rather than in the caches (the product reads it right after, megabytes of it).
void transpose_bf16(uint16_t* dst, int64_t ld, const uint16_t* src, int64_t rows, int64_t cols);

// The row stride at which transpose_bf16 writes whole lines: rows rounded up to 32 (64 bytes of bf16).
inline int64_t transpose_bf16_ld(int64_t rows) { return (rows + 31) / 32 * 32; }

}  // namespace cpuft
