// Matrix products of the encoder (private to model/), on oneDNN's row-major sgemm. In bf16 mode the
// callers pass operands already rounded to bf16 values (held in f32), so the product is the exact
// bf16 x bf16 product with f32 accumulation that a bf16 matmul computes; oneDNN 2.6 cannot create
// bf16 matmuls on AVX2-only CPUs, so this path works everywhere.
#pragma once

#include <cstdint>

namespace cpuft {

// C[m, n] = alpha * op(A) op(B) + beta * C, op = transpose when the flag is set; lda/ldb/ldc are the
// row strides of A, B, C as stored. Throws cpuft::Error if oneDNN reports a failure.
void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// y[rows, out] = x[rows, in] W[out, in]^T + bias[out].
void linear_fwd(float* y, const float* x, const float* w, const float* bias, int64_t rows, int64_t in, int64_t out);
// dx[rows, in] = dy W (written, or added when accumulate_dx); dW += dy^T x; dbias += column sums of dy.
// dx may be null (no input gradient wanted).
void linear_bwd(float* dx, float* dw, float* dbias, const float* dy, const float* x, const float* w, int64_t rows,
                int64_t in, int64_t out, bool accumulate_dx);

}  // namespace cpuft
