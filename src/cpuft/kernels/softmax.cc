// Masked attention softmax: dispatch through the ISA table.
#include "cpuft/kernels/softmax.h"

#include "cpuft/kernels/kernel_table.h"

namespace cpuft {

void softmax_fwd(float* probs, uint16_t* probs_bf16, const float* scores, const int8_t* key_mask,
                 int B, int H, int Tq, int Tk, float divisor, float mask_value) {
  kernels().softmax_fwd(probs, probs_bf16, scores, key_mask, B, H, Tq, Tk, divisor, mask_value);
}

void softmax_bwd(float* dscores, uint16_t* dscores_bf16, const float* dprobs, const float* probs,
                 const int8_t* key_mask, int B, int H, int Tq, int Tk, float divisor) {
  kernels().softmax_bwd(dscores, dscores_bf16, dprobs, probs, key_mask, B, H, Tq, Tk, divisor);
}

}  // namespace cpuft
