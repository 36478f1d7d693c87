// GELU: dispatch through the ISA table.
#include "cpuft/kernels/gelu.h"

#include "cpuft/kernels/kernel_table.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {

void gelu_fwd(float* out, uint16_t* out_bf16, float* pre, const float* bias, int64_t M,
              int64_t N) {
  OpScope scope(Op::kGelu);
  kernels().gelu_fwd(out, out_bf16, pre, bias, M, N);
}

void gelu_bwd(float* dpre, uint16_t* dpre_bf16, float* dbias, const float* dout, const float* pre, int64_t M,
              int64_t N) {
  OpScope scope(Op::kGelu);
  kernels().gelu_bwd(dpre, dpre_bf16, dbias, dout, pre, M, N);
}

}  // namespace cpuft
