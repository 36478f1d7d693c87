// The activation arena of QaModel: every tensor backward needs, plus backward scratch, carved out of
// one f32 block by Acts::plan. N = batch * seq_len rows, H = hidden, I = intermediate, nh = heads.
// Sizes (floats), f32 mode:
//   embeddings   sum, ln, x0: 3 N H; mean, rstd: 2 N
//   per layer    q, k, v, ctx, res1, h1, res2, h2: 8 N H; ff1 pre-GELU and GELU out: 2 N I;
//                probs: B nh T^2; mean/rstd x2: 4 N
//   bf16 mode    + per layer rounded copies of the layer input and h1: 2 N H; + rounded qa input
//   head         qa input: N H; logits, dlogits: 4 N
//   scratch      dres, da, db, dq, dk, dv: 6 N H; di: N I; rounded dy: N max(H, I);
//                per thread two T^2 attention tiles
// A forward-only plan (evaluation, prediction) keeps no activations for backward: layers alternate
// between two sets of per-layer tensors (layer i reads the output of set (i-1) % 2), and probs, the
// backward scratch and dlogits are absent (null), so its size does not grow with the number of layers.
#pragma once

#include <vector>

#include "cpuft/model/qa_model.h"

namespace cpuft {

struct QaModel::Acts {
  struct Layer {
    float *xb;        // (N, H) the layer input rounded to bf16 (bf16 mode), else the input itself
    float *q, *k, *v; // (N, H) projections; DistilBERT q already divided by sqrt(head_dim)
    float* probs;     // (B, nh, T, T) softmax output before attention dropout (null: forward only)
    float* ctx;       // (N, H) attention output before the output projection
    float *res1, *mean1, *rstd1;  // (N, H) input of the first LayerNorm, its (N) statistics
    float *h1, *h1b;  // (N, H) first LayerNorm output, and its bf16 rounding (= h1 in f32 mode)
    float *f1, *g;    // (N, I) FFN pre-activation and GELU output
    float *res2, *mean2, *rstd2;  // (N, H) input of the second LayerNorm, its statistics
    float* h2;        // (N, H) layer output
  };
  int batch = 0, seq = 0;
  float *emb_sum, *emb_mean, *emb_rstd, *emb_ln, *x0;  // embeddings: (N, H), (N), (N), (N, H), (N, H)
  std::vector<Layer> layers;
  float* qa_in;    // (N, H) input of qa_outputs (after qa_dropout; bf16-rounded in bf16 mode)
  float* logits;   // (N, 2) interleaved start, end
  float* dlogits;  // (N, 2)
  // backward scratch
  float *dres, *da, *db, *dq, *dk, *dv;  // (N, H)
  float* di;        // (N, I)
  float* dy_round;  // (N, max(H, I)) an output gradient rounded to bf16 (bf16 mode)
  float* tiles;     // (threads, 2, T, T)
  size_t floats = 0;

  // Lays the tensors out from `base` (or only counts the floats when base is null) into `a`,
  // reusing the capacity of a.layers (so re-planning inside a step allocates nothing).
  static void plan(Acts& a, const ModelConfig& c, bool bf16, int batch, int seq, int threads, bool training,
                   float* base);
};

}  // namespace cpuft
