// Exact (erf) GELU (hidden_act "gelu"; docs/parity.md, Model).
#pragma once

#include <cstdint>

namespace cpuft {

// out = gelu(pre) = (pre * 0.5) * (1 + erf(pre * M_SQRT1_2))   (torch's formula and order; the vector
// kernels compute pre * cdf(pre) with cdf = erfc(-pre/sqrt2) / 2 (vec_math.h's vnormal_cdf, one exp), which
// is the same value to a few f32 ulps)
// pre (M,N) f32, or pre_bf16 (M,N) bf16 (bf16 training keeps the FFN pre-activation as its product
// wrote it, as autocast does): exactly one of the two. out (M,N) and out_bf16 (M,N) nullable (e.g.
// only the bf16 copy feeds the next GEMM). out may alias pre only when no backward is needed (eval),
// since backward needs pre. The vector kernels take a bf16 pre-activation's value (and in gelu_bwd its
// gradient factor) from a table of every bf16 value, computed once by the same operations: the bits of
// computing it, in a gather.
void gelu_fwd(float* out, uint16_t* out_bf16, const float* pre, const uint16_t* pre_bf16, int64_t M, int64_t N);

// dpre = dout * (cdf(pre) + pre * pdf(pre)),  cdf = 0.5 * (1 + erf(pre/sqrt2)),
// pdf = exp(-pre^2/2) / sqrt(2*pi), over M rows of N, in one pass that also writes what the layer's
// backward reads next: dpre (M,N) f32 and dpre_bf16 (M,N) its bf16 copy (the output gradient of the
// product that made pre), each nullable, OVERWRITTEN; dpre may alias dout. dbias (N) nullable: the
// bias gradient of that product, += the column sums of dpre, each column summed over the rows in
// order in f32 (bias_grad's sums, the same bits, whatever the thread count).
// pre or pre_bf16 as gelu_fwd's; dout (M,N) f32, or dout_bf16 (M,N) bf16 (bf16 training: the input
// gradient of the next product as its bf16 product writes it, as autocast's is), exactly one of the two.
void gelu_bwd(float* dpre, uint16_t* dpre_bf16, float* dbias, const float* dout, const uint16_t* dout_bf16,
              const float* pre, const uint16_t* pre_bf16, int64_t M, int64_t N);

// The f32 backward's recompute of a layer's GELU (f32 training keeps the pre-activation, not the output):
// out (M,N) = gelu_fwd's out of pre, and pre OVERWRITTEN in place by gelu_bwd's factor, cdf(pre) + pre *
// pdf(pre): one normal CDF for both, where gelu_fwd then gelu_bwd compute it twice.
void gelu_recompute(float* out, float* pre, int64_t M, int64_t N);

// gelu_bwd (f32) from gelu_recompute's factor (M,N): dpre = dout * factor, dbias += its column sums; the
// bits gelu_bwd gives from the pre-activation. dpre may alias dout.
void gelu_bwd_factored(float* dpre, float* dbias, const float* dout, const float* factor, int64_t M, int64_t N);

}  // namespace cpuft
