// GELU: scalar reference (cpuft::ref).
#include "cpuft/kernels/ref_kernels.h"

#include <cmath>

#include "cpuft/tensor/bf16.h"

namespace cpuft {
namespace ref {

namespace {

float input(const float* pre, const uint16_t* pre_bf16, int64_t i) { return pre ? pre[i] : bf16_to_f32(pre_bf16[i]); }

// dpre = dout * factor(i) down each column, its sum added to dbias: gelu_bwd's loop, whatever the factor's source.
template <class Factor>
void bwd_columns(float* dpre, uint16_t* dpre_bf16, float* dbias, const float* dout, const uint16_t* dout_bf16,
                 int64_t M, int64_t N, Factor factor) {
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < N; ++c) {
    float acc = 0.0f;
    for (int64_t m = 0; m < M; ++m) {
      const int64_t i = m * N + c;
      const float g = input(dout, dout_bf16, i) * factor(i);
      acc += g;
      if (dpre) dpre[i] = g;
      if (dpre_bf16) dpre_bf16[i] = f32_to_bf16(g);
    }
    if (dbias) dbias[c] += acc;
  }
}

// cdf + x * pdf, from erf(x / sqrt2).
float grad_factor(float x, float erf_x) {
  const float cdf = 0.5f * (1.0f + erf_x);
  const float pdf = 0.39894228040143268f * std::exp(x * x * -0.5f);
  return cdf + x * pdf;
}

}  // namespace

void gelu_fwd(float* out, uint16_t* out_bf16, const float* pre, const uint16_t* pre_bf16, int64_t M, int64_t N) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < M * N; ++i) {
    const float x = input(pre, pre_bf16, i);
    const float y = (x * 0.5f) * (1.0f + std::erf(x * 0.70710678118654752f));
    if (out) out[i] = y;
    if (out_bf16) out_bf16[i] = f32_to_bf16(y);
  }
}

void gelu_bwd(float* dpre, uint16_t* dpre_bf16, float* dbias, const float* dout, const uint16_t* dout_bf16,
              const float* pre, const uint16_t* pre_bf16, int64_t M, int64_t N) {
  bwd_columns(dpre, dpre_bf16, dbias, dout, dout_bf16, M, N, [=](int64_t i) {
    const float x = input(pre, pre_bf16, i);
    return grad_factor(x, std::erf(x * 0.70710678118654752f));
  });
}

// gelu_fwd's value and gelu_bwd's factor, from one erf.
void gelu_recompute(float* out, float* pre, int64_t M, int64_t N) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < M * N; ++i) {
    const float x = pre[i], erf_x = std::erf(x * 0.70710678118654752f);
    out[i] = (x * 0.5f) * (1.0f + erf_x);
    pre[i] = grad_factor(x, erf_x);
  }
}

void gelu_bwd_factored(float* dpre, float* dbias, const float* dout, const float* factor, int64_t M, int64_t N) {
  bwd_columns(dpre, nullptr, dbias, dout, nullptr, M, N, [=](int64_t i) { return factor[i]; });
}

}  // namespace ref
}  // namespace cpuft
