// AdamW and the gradient-norm helpers: scalar reference (cpuft::ref).
#include "cpuft/kernels/ref_kernels.h"

#include <cmath>

#include "cpuft/kernels/adamw_scalars.h"
#include "cpuft/kernels/kernel_table.h"
#include "cpuft/tensor/bf16.h"

namespace cpuft {
namespace ref {

// Torch's order (docs/parity.md, Training): lerp_ and addcmul_ are fused multiply-adds in torch's CPU kernels
// (checked against torch bit for bit, tools/kernels_adamw_fixture.py); nothing else is fused.
void adamw_step(float* w, float* m, float* v, uint16_t* w_bf16, float* g, int64_t n, const AdamWParams& p,
                int64_t step) {
  const AdamWScalars s = adamw_scalars(p, step);
  const bool decay = p.weight_decay != 0.0;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g[i] * p.grad_scale;
    if (p.zero_grad) g[i] = 0.0f;
    float wi = w[i];
    if (decay) wi = wi * s.decay;
    const float mi = std::fma(s.one_m_b1, gi - m[i], m[i]);
    const float vi = std::fma(s.one_m_b2 * gi, gi, v[i] * s.b2);
    const float den = std::sqrt(vi) / s.bc2_sqrt + s.eps;
    wi = wi + (s.neg_step * mi) / den;
    w[i] = wi;
    m[i] = mi;
    v[i] = vi;
    if (w_bf16) w_bf16[i] = f32_to_bf16(wi);
  }
}

void block_sum_squares(double* out, const float* x, int64_t n) {
  const int64_t blocks = (n + kSumSquaresBlock - 1) / kSumSquaresBlock;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = (b + 1) * kSumSquaresBlock < n ? (b + 1) * kSumSquaresBlock : n;
    double acc = 0.0;
    for (int64_t i = b * kSumSquaresBlock; i < end; ++i) {
      acc += static_cast<double>(x[i]) * static_cast<double>(x[i]);
    }
    out[b] = acc;
  }
}

void scale_inplace(float* x, int64_t n, float s) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) x[i] *= s;
}

}  // namespace ref
}  // namespace cpuft
