// Masked softmax over the last axis of attention scores (docs/parity.md, Model).
#pragma once

#include <cstdint>

namespace cpuft {

// The value that masked scores are replaced with: the lowest finite value of the score dtype
// (HF masked_fill with torch.finfo(dtype).min).
constexpr float kMaskLowestF32 = -3.4028234663852886e38f;
constexpr float kMaskLowestBf16 = -3.3895313892515355e38f;

// scores, probs (B,H,Tq,Tk): rows are (b,h,query), the last axis is the key position (Tq == Tk
// for self-attention over a whole sequence; Tk < Tq when the caller drops keys it knows are masked).
// For each row:  s = scores / divisor;  s[k] = mask_value where key_mask[b,k] == 0;
//   probs = exp(s - max(s)) / sum(exp(s - max(s)))   (f32 statistics).
// divisor: 1 when the scaling was already applied (DistilBERT scales q), sqrt(head_dim) for BERT
//   (which divides the product; a true division, as torch does, so head_dim 32 matches).
// key_mask (B,Tk) int8, 1 keep / 0 masked, nullable (no mask). A fully masked row gives the
//   uniform distribution 1/Tk (every score equals mask_value), as in HF.
// BERT's additive mask (s + (1-m)*lowest) equals replacement for any |s| < 1e30, so one kernel
//   serves both families.
// probs may alias scores. probs_bf16 (B,H,Tq,Tk) nullable: bf16 copy for the probs x V GEMM.
void softmax_fwd(float* probs, uint16_t* probs_bf16, const float* scores, const int8_t* key_mask,
                 int B, int H, int Tq, int Tk, float divisor, float mask_value);

// Backward: dscores = P * (dP - sum_k(dP * P)) / divisor per row, then set to 0 where the key is
// masked (masked_fill passes no gradient; only matters for fully masked rows). All (B,H,Tq,Tk);
// dscores OVERWRITTEN, may alias dprobs. probs is the f32 output of softmax_fwd. dscores and
// dscores_bf16 (a bf16 copy, for the products that read the score gradient) are each nullable.
void softmax_bwd(float* dscores, uint16_t* dscores_bf16, const float* dprobs, const float* probs,
                 const int8_t* key_mask, int B, int H, int Tq, int Tk, float divisor);

}  // namespace cpuft
