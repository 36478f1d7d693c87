#include "cpuft/model/linear.h"

#include <dnnl.h>

#include "cpuft/kernels/gelu.h"
#include "cpuft/util/error.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {

void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  const dnnl_status_t st = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb,
                                      beta, c, ldc);
  if (st != dnnl_success)
    fail("oneDNN sgemm failed (status ", static_cast<int>(st), ") for m=", m, " n=", n, " k=", k);
}

void linear_fwd(float* y, const float* x, const float* w, const float* bias, int64_t rows, int64_t in,
                int64_t out) {
  OpScope scope(Op::matmul);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < out; ++j) y[r * out + j] = bias[j];
  sgemm(false, true, rows, out, in, 1.f, x, in, w, in, 1.f, y, out);
}

void linear_bwd(float* dx, float* dw, float* dbias, const float* dy, const float* x, const float* w, int64_t rows,
                int64_t in, int64_t out, bool accumulate_dx) {
  OpScope scope(Op::matmul);
  if (dx) sgemm(false, false, rows, in, out, 1.f, dy, out, w, in, accumulate_dx ? 1.f : 0.f, dx, in);
  sgemm(true, false, out, in, rows, 1.f, dy, out, x, in, 1.f, dw, in);
  bias_grad(dbias, dy, rows, out);
}

}  // namespace cpuft
