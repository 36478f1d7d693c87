// Residual + LayerNorm: scalar reference (cpuft::ref).
#include "cpuft/kernels/ref_kernels.h"

#include <cmath>

#include "cpuft/tensor/bf16.h"

namespace cpuft {
namespace ref {

void layernorm_fwd(float* out, uint16_t* out_bf16, float* mean, float* rstd, float* x_sum, const float* a,
                   const uint16_t* a_bf16, const float* r, const float* w, const float* b, int N, int C, float eps) {
#pragma omp parallel for schedule(static)
  for (int64_t n = 0; n < N; ++n) {
    const int64_t off = n * C;
    auto a_at = [&](int64_t c) { return a ? a[off + c] : bf16_to_f32(a_bf16[off + c]); };
    auto x_at = [&](int64_t c) { return r ? a_at(c) + r[off + c] : a_at(c); };
    float sum = 0.0f;
    for (int64_t c = 0; c < C; ++c) sum += x_at(c);
    const float mu = sum / static_cast<float>(C);
    float var = 0.0f;
    for (int64_t c = 0; c < C; ++c) var += (x_at(c) - mu) * (x_at(c) - mu);
    const float rs = 1.0f / std::sqrt(var / static_cast<float>(C) + eps);
    for (int64_t c = 0; c < C; ++c) {
      const float x = x_at(c);
      const float y = (x - mu) * rs * w[c] + b[c];
      if (x_sum) x_sum[off + c] = x;  // after reading x: x_sum may alias a or r
      out[off + c] = y;
      if (out_bf16) out_bf16[off + c] = f32_to_bf16(y);
    }
    if (mean) mean[n] = mu;
    if (rstd) rstd[n] = rs;
  }
}

void layernorm_bwd(float* dx, float* dw, float* db, const float* dout, const float* x,
                   const float* mean, const float* rstd, const float* w, int N, int C) {
  // Parameter gradients first: dx may alias dout.
  for (int64_t c = 0; c < C; ++c) {
    float aw = 0.0f, ab = 0.0f;
    for (int64_t n = 0; n < N; ++n) {
      const float d = dout[n * C + c];
      aw += d * ((x[n * C + c] - mean[n]) * rstd[n]);
      ab += d;
    }
    dw[c] += aw;
    db[c] += ab;
  }
#pragma omp parallel for schedule(static)
  for (int64_t n = 0; n < N; ++n) {
    const int64_t off = n * C;
    if (C == 1) {  // constant output: see layernorm.h
      dx[off] = 0.0f;
      continue;
    }
    float sg = 0.0f, sgx = 0.0f;
    for (int64_t c = 0; c < C; ++c) {
      const float g = dout[off + c] * w[c];
      sg += g;
      sgx += g * ((x[off + c] - mean[n]) * rstd[n]);
    }
    const float mg = sg / static_cast<float>(C);
    const float mgx = sgx / static_cast<float>(C);
    for (int64_t c = 0; c < C; ++c) {
      const float g = dout[off + c] * w[c];
      const float xhat = (x[off + c] - mean[n]) * rstd[n];
      dx[off + c] = (g - mg - xhat * mgx) * rstd[n];
    }
  }
}

}  // namespace ref
}  // namespace cpuft
