// Multi-head self-attention core of one layer (private to model/): scores, masked softmax, attention
// dropout and probabilities x values, and its backward. The projections around it are linear layers.
//
// Layouts: token rows, with head h in columns [h*HD, (h+1)*HD) of each part: qkv and its gradient are
// (N, 3H), row r = q | k | v (the one product of the q, k, v projections); ctx and its gradient are
// (N, H). A padded batch is B sequences of T rows each (N = B*T); a packed batch is B
// windows of their own lengths back to back (the cumulative offsets of variable-length attention),
// so no query or key of padding is ever computed.
// Each (sequence, head) is one task: its scores and probabilities stay in the calling thread's tiles
// (cache-sized at SQuAD lengths), and the softmax and dropout passes run the vector kernels of
// kernels/ on them. No probabilities are kept between forward and backward: backward recomputes
// them from q and k (bit for bit the forward's), as flash attention does, which saves
// B * heads * T^2 floats per layer (56 MiB per DistilBERT layer at batch 8 x 384) for one extra
// scores product. Only the dropout mask is kept, as bits (1/32 of that: 1.7 MiB), so that backward
// applies it without hashing it again, and each row's softmax max and 1 / sum (2 floats a row, 0.3 MiB),
// as flash attention keeps its rows' log-sum-exp: backward computes each probability from its score in
// the pass that starts the softmax's gradient (kernels/softmax.h's softmax_recompute_bwd). Keys after a
// sequence's last unmasked one (right padding) are left out of every product: their probabilities are
// exactly 0, so the result is the same, and SQuAD windows are 35-54% padding; the tiles then hold
// (T, L), L the number of keys up to the last unmasked one. A packed sequence of length T' has T'
// queries and T' keys (its masked keys, if any, masked).
#pragma once

#include <cmath>
#include <cstdint>

#include "cpuft/kernels/softmax.h"

namespace cpuft {

// How a layer scales its scores by 1/sqrt(head_dim). BERT multiplies q k^T by it; DistilBERT divides
// q by sqrt(head_dim) before the product, which gives the same bits as scaling the product when
// sqrt(head_dim) is a power of two (head_dim 64: 8; scaling by a power of two is exact), so only
// DistilBERTs with other head sizes pay a division pass over q (q_divisor > 0; then the scores are
// not scaled again and dq takes the division's 1/q_divisor).
struct ScoreScale {
  float q_divisor = 0.f;  // > 0: divide q by it after the projection
  float scores = 1.f;     // attention_fwd / attention_bwd's score_scale
  float dq = 1.f;         // attention_bwd's dq_scale
};
inline ScoreScale score_scale(bool distilbert, int64_t head_dim) {
  const double root = std::sqrt(static_cast<double>(head_dim));
  const float inverse = static_cast<float>(1.0 / root);
  int exponent = 0;
  if (!distilbert || std::frexp(root, &exponent) == 0.5) return ScoreScale{0.f, inverse, inverse};
  return ScoreScale{static_cast<float>(root), 1.f, inverse};
}

// Tiles of T * T floats each thread needs (attention_fwd, attention_bwd).
constexpr int64_t kTilesPerThread = 3;

struct AttentionShape {
  int64_t batch, seq, hidden, heads;  // seq: the rows of each sequence (padded), or the longest (packed)
  // Packed: (batch + 1) row offsets, sequence b = rows [cu_seqlens[b], cu_seqlens[b + 1]); null: padded.
  const int32_t* cu_seqlens = nullptr;
  int64_t head_dim() const { return hidden / heads; }
};

// Attention-probability dropout: element (i, j) of the (T, L) probabilities of sequence-head bh uses
// mask index first_index + bh*T*T + i*L + j of (seed, stream) (kernels/dropout.h); p == 0 is no
// dropout. With p > 0, keep holds the drawn mask as bits between forward and backward: batch * heads
// regions of attention_keep_bytes(T) bytes, sequence-head bh's at bh * attention_keep_bytes(T) (its
// rows as kernels/softmax.h keeps them); attention_fwd writes them and attention_bwd applies them
// (twice) instead of hashing the mask again. The dropout runs inside the softmax passes.
struct AttentionDropout {
  float p = 0.f;
  uint64_t seed = 0, stream = 0, first_index = 0;
  uint8_t* keep = nullptr;
};
inline int64_t attention_keep_bytes(int64_t seq) { return seq * softmax_dropout_row_bytes(seq); }

// The softmax statistics forward keeps for backward (kernels/softmax.h, softmax_fwd's stats): each query
// row's max and 1 / sum, batch * heads * seq rows of 2 floats, sequence-head bh's from bh * seq rows on.
// With them backward recomputes the probabilities in the passes of their gradient, the same bits.
inline int64_t attention_stats_floats(int64_t batch, int64_t heads, int64_t seq) { return batch * heads * seq * 2; }

// scores = score_scale * q k^T, masked softmax over keys (key_mask (N), one flag per token row,
// nullable), then ctx = dropout(probs) v. f32 mode reads qkv and writes ctx; bf16 mode (qkv16 set)
// reads qkv16 and writes ctx16, both bf16: every product is a bf16 product with f32 accumulation,
// the scores rounded to bf16 (autocast's bf16 product output) before the f32 softmax, and the
// (dropped) probabilities rounded to bf16 for the probs x V product. The other pair is null.
// Dropout needs a padded batch (training); a packed one is forward only.
// tiles: (threads, kTilesPerThread, T, T), threads = the OpenMP thread count. stats (attention_stats_floats)
// nullable: written when not null, for attention_bwd.
void attention_fwd(float* ctx, uint16_t* ctx16, float* tiles, float* stats, const float* qkv, const uint16_t* qkv16,
                   const int8_t* key_mask, const AttentionShape& s, float score_scale, const AttentionDropout& drop);

// The gradient of attention_fwd's qkv from the context gradient: dctx and qkv (f32 mode) or dctx16
// and qkv16 (bf16 mode). dq is scaled by dq_scale instead of score_scale, so a caller that scaled q
// before the product (DistilBERT) folds that scale in; dk is scaled by score_scale.
// f32 mode: dqkv (f32) OVERWRITTEN (dqkv16 and dbias null).
// bf16 mode: dqkv16 OVERWRITTEN with the products' f32 sums rounded to bf16 (what the q, k, v
// projection's backward products read), and their column sums in f32, the projection's bias
// gradient, ADDED into dbias (3H): each sequence's rows in order, then the sequences in order, the
// same bits for any thread count (dqkv null). No f32 gradient is written: that pass, its rounding
// pass and the bias-gradient pass over it are gone. stats: what attention_fwd wrote there (not null).
void attention_bwd(float* dqkv, uint16_t* dqkv16, float* dbias, float* tiles, const float* stats, const float* dctx,
                   const uint16_t* dctx16, const float* qkv, const uint16_t* qkv16, const int8_t* key_mask,
                   const AttentionShape& s, float score_scale, float dq_scale, const AttentionDropout& drop);

}  // namespace cpuft
