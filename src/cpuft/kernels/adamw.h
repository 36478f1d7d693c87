// AdamW (torch.optim.AdamW semantics) and gradient-norm helpers (docs/parity.md, Training).
#pragma once

#include <cstdint>

namespace cpuft {

struct AdamWParams {
  double lr = 0;            // current learning rate (from the schedule, a double as in torch)
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;  // per tensor: 0 for biases and LayerNorm weights (the Trainer's groups)
  // clip_grad_norm_'s coefficient, applied as the gradient is read: g' = f32(g * grad_scale), the bits
  // of scaling the gradients in place first (scale_inplace), without that pass.
  float grad_scale = 1.0f;
  bool zero_grad = false;  // g set to 0 once read: the next step's gradients accumulate from 0
};

// One update of n elements at optimizer step `step` (1-based: the value of t AFTER t <- t + 1).
// w, m, v (n) updated in place; g (n) the gradient, read as g * p.grad_scale, then zeroed where
// p.zero_grad (otherwise left as it is). Exactly torch >= 2.0's single-tensor path, f32 elementwise
// with each scalar rounded to f32 at its point of use:
//   w = w * f32(1 - lr*wd)                       (skipped when wd == 0)
//   m = m + f32(1-beta1) * (g - m)               (torch lerp, weight < 0.5)
//   v = v * f32(beta2) + f32(1-beta2) * g * g    (mul_ then addcmul_)
//   bc1 = 1 - beta1^step, bc2 = 1 - beta2^step in double; step_size = lr / bc1
//   denom = sqrt(v) / f32(sqrt(bc2)) + f32(eps)
//   w = w + f32(-step_size) * m / denom          (addcdiv_)
// No fused multiply-adds anywhere, so all ISAs give identical bits.
// w_bf16 (n) nullable: receives the bf16 copy of the updated w in the same pass.
void adamw_step(float* w, float* m, float* v, uint16_t* w_bf16, float* g, int64_t n, const AdamWParams& p,
                int64_t step);

// Sum of squares of x (n) in double: x*x is exact in double; fixed blocks of 4096 elements are
// summed and the block sums added in order, so the result does not depend on the thread count.
// For clipping: norm_i = sqrt(sum_squares(g_i)); total = sqrt(sum_i norm_i^2).
double sum_squares(const float* x, int64_t n);

// x (n) *= s, in f32 (clip_grad_norm_ multiplies every gradient by coef, even when coef == 1).
void scale_inplace(float* x, int64_t n, float s);

}  // namespace cpuft
