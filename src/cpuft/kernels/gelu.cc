// GELU: dispatch through the ISA table.
#include "cpuft/kernels/gelu.h"

#include "cpuft/kernels/kernel_table.h"
#include "cpuft/util/error.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {

namespace {

void check_one_input(const char* what, const float* pre, const uint16_t* pre_bf16) {
  if ((pre == nullptr) == (pre_bf16 == nullptr)) fail_internal(what, ": expected exactly one f32 or bf16 input");
}

}  // namespace

void gelu_fwd(float* out, uint16_t* out_bf16, const float* pre, const uint16_t* pre_bf16, int64_t M, int64_t N) {
  OpScope scope(Op::kGelu);
  check_one_input("gelu_fwd", pre, pre_bf16);
  kernels().gelu_fwd(out, out_bf16, pre, pre_bf16, M, N);
}

void gelu_bwd(float* dpre, uint16_t* dpre_bf16, float* dbias, const float* dout, const uint16_t* dout_bf16,
              const float* pre, const uint16_t* pre_bf16, int64_t M, int64_t N) {
  OpScope scope(Op::kGelu);
  check_one_input("gelu_bwd: pre", pre, pre_bf16);
  check_one_input("gelu_bwd: dout", dout, dout_bf16);
  kernels().gelu_bwd(dpre, dpre_bf16, dbias, dout, dout_bf16, pre, pre_bf16, M, N);
}

void gelu_recompute(float* out, float* pre, int64_t M, int64_t N) {
  OpScope scope(Op::kGelu);
  if (!out || !pre) fail_internal("gelu_recompute: expected the output and the pre-activation");
  kernels().gelu_recompute(out, pre, M, N);
}

void gelu_bwd_factored(float* dpre, float* dbias, const float* dout, const float* factor, int64_t M, int64_t N) {
  OpScope scope(Op::kGelu);
  if (!dout || !factor) fail_internal("gelu_bwd_factored: expected the output gradient and the factor");
  kernels().gelu_bwd_factored(dpre, dbias, dout, factor, M, N);
}

}  // namespace cpuft
