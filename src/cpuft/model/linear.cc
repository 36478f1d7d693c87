#include "cpuft/model/linear.h"

#include "cpuft/kernels/gemm.h"
#include "cpuft/tensor/bf16.h"
#include "cpuft/util/error.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {
namespace {

void check_same_dtype(const char* what, GemmIn a, GemmIn b) {
  if (a.dtype != b.dtype)
    fail(what, ": operands of dtypes ", dtype_name(a.dtype), " and ", dtype_name(b.dtype), ", expected one dtype");
}

}  // namespace

GemmIn gemm_operand(const float* x, uint16_t* b16, int64_t n) {
  if (!b16) return {x, DType::kF32};
  OpScope scope(Op::kBf16Round);
  f32_to_bf16_array(x, b16, n);
  return {b16, DType::kBf16};
}

void round_bf16_in_place(float* x, int64_t n, bool bf16) {
  if (!bf16) return;
  OpScope scope(Op::kBf16Round);
  round_bf16_array(x, x, n);
}

void linear_fwd(float* y, GemmIn x, GemmIn w, const float* bias, int64_t rows, int64_t in, int64_t out) {
  OpScope scope(Op::kMatmul);
  check_same_dtype("linear_fwd", x, w);
  linear_forward(rows, out, in, x.data, w.data, x.dtype, bias, y, DType::kF32, w.forward_blocked);
}

void linear_bf16_fwd(uint16_t* y, GemmIn x, GemmIn w, const float* bias, int64_t rows, int64_t in, int64_t out) {
  OpScope scope(Op::kMatmul);
  check_same_dtype("linear_bf16_fwd", x, w);
  linear_forward(rows, out, in, x.data, w.data, x.dtype, bias, y, DType::kBf16, w.forward_blocked);
}

void linear_bwd(GemmOut dx, float* dw, float* dbias, const float* dy32, GemmIn dy, GemmIn x, GemmIn w, int64_t rows,
                int64_t in, int64_t out, bool accumulate_dx) {
  OpScope scope(Op::kMatmul);
  check_same_dtype("linear_bwd", dy, w);
  check_same_dtype("linear_bwd", dy, x);
  if (dx.data)
    linear_backward_data(rows, out, in, dy.data, w.data, dy.dtype, dx.data, dx.dtype, accumulate_dx, w.backward_blocked);
  linear_backward_weight(rows, out, in, dy.data, x.data, dy.dtype, dw, /*accumulate=*/true);
  if (dbias) bias_grad(dbias, dy32, rows, out);
}

}  // namespace cpuft
