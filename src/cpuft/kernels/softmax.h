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
// probs may alias scores. probs_bf16 (B,H,Tq,Tk) nullable: bf16 copy for the probs x V GEMM.
// stats (B*H*Tq rows of 2 floats) nullable: each row's statistics as the last pass applies them,
// {max, 1 / sum}, row r's at 2 * r: what softmax_recompute_bwd reads.
void softmax_fwd(float* probs, uint16_t* probs_bf16, const float* scores, const int8_t* key_mask, int B, int H, int Tq,
                 int Tk, ScoreRead read, float mask_value, float* stats = nullptr);

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

// softmax_fwd of (rows, Tk) scores under one key_mask (Tk), and the dropped probabilities
// probs * keep / (1 - p) written in its last pass: dropped (f32) and dropped_bf16, each nullable, the
// values dropout_fwd gives. The mask is hashed and its bits written to d.keep (for the backward, which
// applies them). probs (f32, undropped) and stats (as softmax_fwd's, nullable) are written too.
void softmax_dropout_fwd(float* probs, float* dropped, uint16_t* dropped_bf16, const float* scores,
                         const int8_t* key_mask, int rows, int Tk, ScoreRead read, float mask_value,
                         const SoftmaxDropout& d, float* stats = nullptr);

// The backward of the softmax (and its dropout) over the forward's scores, from that forward's row
// statistics (`stats`, written by the softmax_fwd or softmax_dropout_fwd of the same scores, mask and
// read), row by row in two passes while the row stays in cache, the probabilities never written between
// whole passes (attention's backward, which recomputes its forward's scores instead of keeping them).
// It writes the forward's probabilities p over `scores` (which hold the scores as that forward read
// them); the dropped probabilities p * keep / (1 - p), by d's kept bits (d null: p itself), into
// dropped and dropped_bf16, each nullable; and the gradient of the scores as read (after the read's
// scaling and rounding, which the caller's products apply), ds = p * (dp - sum(dp * p)) with dp =
// ddropped * keep / (1 - p) (d null: ddropped), 0 at masked keys (masked_fill passes no gradient), into
// dscores and dscores_bf16 (its bf16 rounding), each nullable; dscores may alias ddropped.
// All (rows, Tk) under one key_mask (Tk) as softmax_dropout_fwd's; stats not null.
void softmax_recompute_bwd(float* dscores, uint16_t* dscores_bf16, float* dropped, uint16_t* dropped_bf16,
                           float* scores, const float* ddropped, const int8_t* key_mask, int rows, int Tk,
                           ScoreRead read, float mask_value, const float* stats, const SoftmaxDropout* d);

// The dropout as the kernels take it (kernel_table.h): the precomputed key (dropout_key_at), threshold
// and scale, the bits with their row stride, whether to draw them (forward) or apply them (backward),
// and the forward's outputs.
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
