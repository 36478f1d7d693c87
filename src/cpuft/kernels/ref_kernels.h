// Scalar reference kernels (namespace cpuft::ref): the plain formulas the vector kernels are
// tested against, and the fallback on CPUs without AVX2 (CPUFT_ISA=ref). Same contracts as the
// public headers; the table signatures of kernel_table.h.
#pragma once

#include <cstdint>

#include "cpuft/kernels/adamw.h"
#include "cpuft/kernels/softmax.h"

namespace cpuft {
namespace ref {

void embedding_fwd(float* out, const int32_t* ids, const int8_t* type_ids, const int32_t* positions,
                   const float* wte, const float* wpe, const float* wtt, int64_t N, int C);
void embedding_bwd(float* dwte, float* dwpe, float* dwtt, const float* dout, const int32_t* ids,
                   const int8_t* type_ids, const int32_t* positions, int64_t N, int C, int pad_id);
void layernorm_fwd(float* out, uint16_t* out_bf16, float* mean, float* rstd, float* x_sum, const float* a,
                   const uint16_t* a_bf16, const float* r, const float* w, const float* b, int N, int C, float eps);
void layernorm_bwd(float* dx, float* dw, float* db, const float* dout, const float* x,
                   const float* mean, const float* rstd, const float* w, int N, int C);
void gelu_fwd(float* out, uint16_t* out_bf16, const float* pre, const uint16_t* pre_bf16, int64_t M, int64_t N);
void gelu_bwd(float* dpre, uint16_t* dpre_bf16, float* dbias, const float* dout, const uint16_t* dout_bf16,
              const float* pre, const uint16_t* pre_bf16, int64_t M, int64_t N);
void gelu_recompute(float* out, float* pre, int64_t M, int64_t N);
void gelu_bwd_factored(float* dpre, float* dbias, const float* dout, const float* factor, int64_t M, int64_t N);
void bias_grad(float* db, const float* dy, int64_t M, int64_t N);
void softmax_fwd(float* probs, uint16_t* probs_bf16, const float* scores, const int8_t* key_mask, int B, int H, int Tq,
                 int Tk, ScoreRead read, float mask_value, const DropoutPass* drop, float* stats);
void softmax_recompute_bwd(float* dscores, uint16_t* dscores_bf16, float* dropped, uint16_t* dropped_bf16,
                           float* scores, const float* ddropped, const int8_t* key_mask, int rows, int Tk,
                           ScoreRead read, float mask_value, const float* stats, const DropoutPass* drop);
void dropout_apply(float* out, uint16_t* out_bf16, const float* in, const uint16_t* in_bf16, int64_t n, float scale,
                   uint64_t key, uint32_t threshold24);
void adamw_step(float* w, float* m, float* v, uint16_t* w_bf16, float* g, int64_t n, const AdamWParams& p,
                int64_t step);
void block_sum_squares(double* out, const float* x, int64_t n);
void scale_inplace(float* x, int64_t n, float s);

}  // namespace ref
}  // namespace cpuft
