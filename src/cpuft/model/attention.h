// Multi-head self-attention core of one layer (private to model/): scores, masked softmax, attention
// dropout and probabilities x values, and its backward. The projections around it are linear layers.
//
// Layouts: q, k, v, ctx and their gradients are (B, T, H) with head h in columns [h*HD, (h+1)*HD);
// probs is (B, NH, T, T), the softmax output before dropout, kept for backward (forward only: null, and
// each task's probabilities live in its tile). Each (sequence, head)
// is one task: its T x T scores stay in the calling thread's tile (cache-sized at SQuAD lengths), and
// the softmax and dropout passes run the vector kernels of kernels/ on it. Keys after a sequence's
// last unmasked one (right padding) are left out of every product: their probabilities are exactly 0,
// so the result is the same, and SQuAD windows are 35-54% padding. probs then holds (T, L) per
// sequence-head, L the number of keys up to the last unmasked one, in the first T*L of its T*T.
#pragma once

#include <cstdint>

namespace cpuft {

struct AttentionShape {
  int64_t batch, seq, hidden, heads;
  int64_t head_dim() const { return hidden / heads; }
};

// Attention-probability dropout: element (i, j) of the (T, L) probabilities of sequence-head bh uses
// mask index first_index + bh*T*T + i*L + j of (seed, stream) (kernels/dropout.h); p == 0 is no
// dropout.
struct AttentionDropout {
  float p = 0.f;
  uint64_t seed = 0, stream = 0, first_index = 0;
};

// scores = score_scale * q k^T (bf16: rounded), masked softmax over keys (key_mask (B,T), nullable),
// then ctx = dropout(probs) v (bf16: the dropped probabilities rounded). tiles: (threads, 2, T, T).
// probs may be null when no backward follows.
void attention_fwd(float* ctx, float* probs, float* tiles, const float* q, const float* k, const float* v,
                   const int8_t* key_mask, const AttentionShape& s, float score_scale, const AttentionDropout& drop,
                   bool bf16);

// The gradients of attention_fwd's inputs from dctx (bf16 mode: dctx already rounded). dq is scaled
// by dq_scale instead of score_scale, so a caller that scaled q before the product (DistilBERT) folds
// that scale in; dk is scaled by score_scale. dq, dk, dv OVERWRITTEN.
void attention_bwd(float* dq, float* dk, float* dv, float* tiles, const float* dctx, const float* q, const float* k,
                   const float* v, const float* probs, const int8_t* key_mask, const AttentionShape& s,
                   float score_scale, float dq_scale, const AttentionDropout& drop, bool bf16);

}  // namespace cpuft
