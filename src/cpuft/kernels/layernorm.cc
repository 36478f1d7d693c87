// Residual + LayerNorm: dispatch through the ISA table.
#include "cpuft/kernels/layernorm.h"

#include "cpuft/kernels/kernel_table.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {

void layernorm_fwd(float* out, uint16_t* out_bf16, float* mean, float* rstd, float* x_sum, const float* a,
                   const uint16_t* a_bf16, const float* r, const float* w, const float* b, int N, int C, float eps) {
  OpScope scope(Op::kLayernorm);
  kernels().layernorm_fwd(out, out_bf16, mean, rstd, x_sum, a, a_bf16, r, w, b, N, C, eps);
}

void layernorm_bwd(float* dx, float* dw, float* db, const float* dout, const float* x,
                   const float* mean, const float* rstd, const float* w, int N, int C) {
  OpScope scope(Op::kLayernorm);
  kernels().layernorm_bwd(dx, dw, db, dout, x, mean, rstd, w, N, C);
}

}  // namespace cpuft
