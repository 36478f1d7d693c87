// LayerNorm over the last axis with a fused residual add (post-LN blocks, docs/parity.md, Model).
#pragma once

#include <cstdint>

namespace cpuft {

// Forward over N rows of C:  x = a + r  (r nullable: x = a)
//   a (N,C) f32, or, when a is null, a_bf16 (N,C): bf16 values (a bf16 product's output), widened exactly
//   mean[n] = sum(x)/C, var = sum((x-mean)^2)/C (biased), rstd[n] = 1/sqrt(var + eps)
//   out[n,:] = (x - mean) * rstd * w + b                                  w, b (C)
// Outputs: out (N,C) f32; out_bf16 (N,C) nullable bf16 copy of out (for the next GEMM);
//   mean, rstd (N) nullable (needed by layernorm_bwd; pass null in eval);
//   x_sum (N,C) nullable: receives x = a + r (a copy of a when r is null), which layernorm_bwd
//   needs as its input. x_sum may alias a or r; out must not alias a, r or x_sum, nor out_bf16 a_bf16.
// eps: 1e-12 for every model here (layer_norm_eps).
void layernorm_fwd(float* out, uint16_t* out_bf16, float* mean, float* rstd, float* x_sum, const float* a,
                   const uint16_t* a_bf16, const float* r, const float* w, const float* b, int N, int C, float eps);

// Backward. dout (N,C); x (N,C) the input x = a + r saved by the forward (x_sum, or a itself when
// r was null); mean, rstd (N) from the forward; w (C).
//   dx (N,C) OVERWRITTEN with dL/dx. Since x = a + r, dx is also the gradient of a and of r:
//   in a post-LN block  out = LN(sublayer(h) + h)  the caller passes dx = the buffer for dh,
//   uses it as the sublayer output's gradient, and then runs the sublayer's first GEMM
//   backward-data with accumulate (+=) into the same buffer to complete dh.
//   dx may alias dout. With one channel (C == 1) the output is the constant b, whatever x, so dx is
//   exactly 0 on every ISA (computed, it would be rounding noise times rstd = 1/sqrt(eps) = 1e6).
//   dw, db (C) ACCUMULATE (+=). Deterministic: column sums run over rows in order.
void layernorm_bwd(float* dx, float* dw, float* db, const float* dout, const float* x,
                   const float* mean, const float* rstd, const float* w, int N, int C);

}  // namespace cpuft
