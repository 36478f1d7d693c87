// Masked softmax over the last axis of attention scores (docs/parity.md, Model).
#pragma once

#include <cstdint>

namespace cpuft {

// The value that masked scores are replaced with: the lowest finite value of the score dtype
// (HF masked_fill with torch.finfo(dtype).min).
constexpr float kMaskLowestF32 = -3.4028234663852886e38f;
constexpr float kMaskLowestBf16 = -3.3895313892515355e38f;

// How the softmax reads its scores: s = scores * scale (f32), then, with bf16, rounded to the value
// bf16 holds. A bf16 product's output is bf16 (autocast), so attention in bf16 mode stores the
// product's f32 sums unscaled and the softmax's first pass scales and rounds them: the bits of a
// product that scaled and rounded as it stored, without that pass over the scores.
struct ScoreRead {
  float scale = 1.f;
  bool bf16 = false;
};

// scores, probs (B,H,Tq,Tk): rows are (b,h,query), the last axis is the key position (Tq == Tk
// for self-attention over a whole sequence; Tk < Tq when the caller drops keys it knows are masked).
// For each row:  s = scores read as `read` says;  s[k] = mask_value where key_mask[b,k] == 0;
//   probs = exp(s - max(s)) / sum(exp(s - max(s)))   (f32 statistics).
// key_mask (B,Tk) int8, 1 keep / 0 masked, nullable (no mask). A fully masked row gives the
//   uniform distribution 1/Tk (every score equals mask_value), as in HF.
// BERT's additive mask (s + (1-m)*lowest) equals replacement for any |s| < 1e30, so one kernel
//   serves both families.
// Each row's statistics as the softmax's last pass applies them, {max, 1 / sum}: 2 floats a row, row r's
// at 2 * r. A call with `out` writes them there; a call with `in` reads them instead of computing them,
// and each probability comes from its score in one pass (no max pass, no sum pass): the same bits as the
// call that wrote them, given the same scores, mask and read. At most one of the two; both null: neither.
// Attention's backward recomputes its forward's probabilities so.
struct SoftmaxRowStats {
  float* out = nullptr;
  const float* in = nullptr;
};

// probs may alias scores. probs_bf16 (B,H,Tq,Tk) nullable: bf16 copy for the probs x V GEMM.
void softmax_fwd(float* probs, uint16_t* probs_bf16, const float* scores, const int8_t* key_mask, int B, int H, int Tq,
                 int Tk, ScoreRead read, float mask_value, SoftmaxRowStats stats = {});

// Backward: dscores = P * (dP - sum_k(dP * P)) * scale per row (the gradient of the scores before
// a read's scaling by `scale`; rounding passes the gradient through), then set to 0 where the key is
// masked (masked_fill passes no gradient; only matters for fully masked rows). All (B,H,Tq,Tk);
// dscores OVERWRITTEN, may alias dprobs. probs is the f32 output of softmax_fwd. dscores and
// dscores_bf16 (a bf16 copy, for the products that read the score gradient) are each nullable.
void softmax_bwd(float* dscores, uint16_t* dscores_bf16, const float* dprobs, const float* probs,
                 const int8_t* key_mask, int B, int H, int Tq, int Tk, float scale);

// ---- The attention's softmax and its dropout in the same passes (training).
// Element (r, c) of `rows` rows of Tk probabilities is dropout mask index first_index + r * Tk + c of
// (seed, stream) (dropout.h: the masks of dropout_fwd over the rows back to back). The mask is drawn
// once and kept as bits: row r's at keep + r * softmax_dropout_row_bytes(Tk), bit c % 8 of byte c / 8.
struct SoftmaxDropout {
  float p = 0.f;  // in (0, 1)
  uint64_t seed = 0, stream = 0, first_index = 0;
  uint8_t* keep = nullptr;
};
inline int64_t softmax_dropout_row_bytes(int64_t Tk) { return (Tk + 63) / 64 * 8; }

// softmax_fwd of (rows, Tk) scores under one key_mask (Tk), and the dropped
// probabilities probs * keep / (1 - p) written in its last pass: dropped (f32) and dropped_bf16, each
// nullable, the values dropout_fwd gives. draw: the mask is hashed and its bits written to d.keep;
// otherwise the bits there (a drawing call's) are applied. probs (f32, undropped) is written too.
void softmax_dropout_fwd(float* probs, float* dropped, uint16_t* dropped_bf16, const float* scores,
                         const int8_t* key_mask, int rows, int Tk, ScoreRead read, float mask_value,
                         const SoftmaxDropout& d, bool draw, SoftmaxRowStats stats = {});

// softmax_bwd (scale 1) from the gradient of the dropped probabilities: dprobs = ddropped * keep /
// (1 - p) with the kept bits, applied as read (dropout_bwd's values, without its pass).
void softmax_dropout_bwd(float* dscores, uint16_t* dscores_bf16, const float* ddropped, const float* probs,
                         const int8_t* key_mask, int rows, int Tk, const SoftmaxDropout& d);

// The dropout as the kernels take it (kernel_table.h): the precomputed key (dropout_key_at), threshold
// and scale, the bits with their row stride, whether to draw, and the forward's outputs.
struct DropoutPass {
  float scale = 1.f;
  uint64_t key = 0;
  uint32_t threshold24 = 0;
  uint8_t* keep = nullptr;
  int64_t row_bytes = 0;
  bool draw = false;
  float* out = nullptr;
  uint16_t* out_bf16 = nullptr;
};

}  // namespace cpuft
