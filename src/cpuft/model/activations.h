// The activation arena of QaModel: every tensor backward needs, plus backward scratch, carved out of
// one f32 block by Acts::plan. N = token rows (batch * seq_len for a padded batch, the windows' own
// lengths summed for a packed one), H = hidden, I = intermediate, nh = heads, T = the longest window.
// Sizes (floats), f32 mode:
//   tokens       position ids: N (int32)
//   embeddings   sum, ln, x0: 3 N H; mean, rstd: 2 N
//   per layer    qkv: 3 N H (each row q | k | v, one product; bf16 in bf16 mode); ctx, res1, h1, res2, h2: 5 N H;
//                ff1 pre-GELU: N I (bf16 in bf16 mode); mean/rstd x2: 4 N
//                (no attention probabilities: backward recomputes them, attention.h; with attention
//                dropout, its keep bits: B nh T^2 / 8 bytes, rounded up per sequence-head)
//   shared       f32 mode: the GELU output (N I), which backward recomputes from ff1 (and ff1 becomes the GELU's
//                gradient factor there): one buffer for all layers;
//                bf16 mode: the bf16 output of the output projection and of the FFN's second product (N H / 2;
//                training: the output-gradient scratch below, free during the forward)
//   bf16 mode    the operands of the linear layers are kept as bf16 (uint16, half a float each):
//                per layer the layer input, q | k | v and ctx (bf16 only: the attention core reads
//                and writes bf16), h1 (N H each), the FFN pre-activation and the GELU output (N I
//                each, bf16 only; the GELU output not recomputed); backward reads only those, so the f32 h1 is one
//                buffer shared by all layers and the f32 layer outputs h2 alternate between two; the qa input is bf16
//                only, the output-gradient scratch holds bf16, and the context gradient is bf16
//   head         head input: N H; logits, dlogits: 2 N W (W = head width: 2 or num_labels); a sequence
//                head's first-token rows and its dense output: 2 B H (and their bf16 copies)
//   scratch      dres, da, db: 3 N H; dqkv: 3 N H (f32 mode; bf16 mode: 3 N H / 2); di: N I (bf16 mode: N I / 2);
//                bf16 dy: N max(H, I) / 2; bf16 dctx: N H / 2; per thread kTilesPerThread T^2 attention tiles
// A forward-only plan (evaluation, prediction) also holds the packed copy of a padded batch's real
// tokens (ids, types, mask: N each; window offsets: N + 1), and keeps no activations for backward: every layer uses
// one set of tensors except its output h2, which alternates between two buffers (layer i reads
// layer i - 1's); x0 is the embedding LayerNorm output itself, res1 reuses the embedding sum (bf16 mode:
// res1 and res2 unused, the LayerNorms read proj16), the GELU
// runs in place over f1 (f32) or inside the ff1 product (bf16: no f1), and the backward scratch and
// dlogits are absent (null). Its size does not grow with the number of layers, nor with the batch: it
// holds one group of windows (QaModel::group_rows), and a forward pass runs a larger batch group by group.
#pragma once

#include <cstdint>
#include <vector>

#include "cpuft/model/qa_model.h"

namespace cpuft {

constexpr int64_t kProductRowBlock = 64;

struct QaModel::Acts {
  struct Layer {
    const float* x;   // (N, H) the layer input (x0 or the previous layer's h2)
    uint16_t* xb;     // (N, H) the layer input as bf16 (bf16 mode; null in f32 mode)
    float* qkv;       // (N, 3H) projections, row r = q | k | v; DistilBERT q already divided by sqrt(head_dim)
                      // (f32 mode; null in bf16 mode)
    uint16_t* qkv16;  // (N, 3H) qkv as bf16, the projection's own output (bf16 mode; null in f32 mode)
    float* ctx;       // (N, H) attention output before the output projection (f32 mode; null in bf16 mode)
    uint16_t* ctxb;   // (N, H) the attention output as bf16 (bf16 mode; null in f32 mode)
    float *res1, *mean1, *rstd1;  // (N, H) input of the first LayerNorm (training), its (N) statistics
    float* h1;        // (N, H) first LayerNorm output
    uint16_t* h1b;    // (N, H) h1 as bf16 (bf16 mode; null in f32 mode)
    float *f1, *g;    // (N, I) FFN pre-activation (the GELU's gradient factor once backward has recomputed g), GELU
                      // output (f32 mode; g shared by all layers)
    uint16_t* f1b;    // (N, I) the FFN pre-activation as bf16, the ff1 product's own output (bf16 training;
                      // bf16 forward-only plans keep none: their ff1 product applies the GELU)
    uint16_t* gb;     // (N, I) g as bf16 (bf16 mode: per layer in training, shared forward only; null in f32)
    float *res2, *mean2, *rstd2;  // (N, H) input of the second LayerNorm (f32 mode, or training), its statistics
    float* h2;        // (N, H) layer output
    uint8_t* attn_keep;  // the attention dropout's keep bits, batch * heads * attention_keep_bytes(T) bytes
                         // (training with attention dropout; null otherwise)
    float* attn_stats;   // the attention softmax's row statistics, attention_stats_floats(batch, heads, T)
                         // floats (training; null otherwise)
  };
  int64_t rows = 0;  // N
  // The rows the linear layers' products run over: N in training; in a forward-only plan N rounded up
  // to a multiple of kProductRowBlock, so that packed batches (a different N each) reuse a few product
  // shapes instead of building a oneDNN primitive for every batch. The extra rows of every (N, *)
  // tensor are allocated; they hold stale finite values that only those rows of the products read.
  int64_t product_rows = 0;
  int batch = 0, seq = 0;
  int32_t* positions;  // (N) each token's position in its window
  // Forward only: a padded batch packed (QaModel::forward); null in training plans.
  int32_t* packed_ids;   // (N)
  int8_t* packed_types;  // (N)
  int8_t* packed_mask;   // (N)
  int32_t* packed_cu;    // (batch + 1, room for N + 1) window w is tokens [packed_cu[w], packed_cu[w + 1])
  float *emb_sum, *emb_mean, *emb_rstd, *emb_ln, *x0;  // embeddings: (N, H), (N), (N), (N, H), (N, H)
  // (N, H) bf16 mode: the output projection's and the FFN's second product's bf16 output, as autocast's
  // products leave it, which the dropout or the LayerNorm after it reads (training: the output-gradient
  // scratch dy_b16, free during the forward); null in f32 mode
  uint16_t* proj16;
  std::vector<Layer> layers;
  float* head_in;    // (N, H) input of the head's last Linear, after its dropout (null in bf16 mode);
                     // (B, H) for a sequence head
  uint16_t* head_inb;  // head_in as bf16 (bf16 mode; null in f32 mode)
  float* cls;        // (B, H) a sequence head's first-token rows (null for other heads)
  uint16_t* clsb;    // cls as bf16 (bf16 mode)
  float* pooled;     // (B, H) a sequence head's dense output after its ReLU / tanh
  float* logits;   // (N, W) question answering: interleaved start, end; (B, W) for a sequence head
  float* dlogits;  // as logits
  // backward scratch
  float *dres, *da, *db;  // (N, H)
  float* dqkv;             // (N, 3H) gradients of q | k | v (f32 mode; null in bf16 mode)
  uint16_t* dqkv16;        // (N, 3H) the same as bf16, the attention core's output (bf16 mode; null in f32 mode)
  uint16_t* dctx16;        // (N, H) the context gradient as bf16 (bf16 mode; null in f32 mode)
  float* di;               // (N, I) lin2's input gradient (f32 mode; null in bf16 mode)
  uint16_t* di16;          // (N, I) the same as bf16, as lin2's bf16 product writes it (bf16 mode; null in f32 mode)
  uint16_t* dy_b16;  // (N, max(H, I)) an output gradient as bf16 (bf16 mode; null in f32 mode)
  float* tiles;     // (threads, kTilesPerThread, T, T)
  size_t floats = 0;

  // Lays the tensors of `rows` token rows of `batch` windows of at most `seq` tokens out from `base`
  // (or only counts the floats when base is null) into `a`, reusing the capacity of a.layers (so
  // re-planning inside a step allocates nothing).
  static void plan(Acts& a, const ModelConfig& c, bool bf16, int64_t rows, int batch, int seq, int threads,
                   bool training, float* base);
};

}  // namespace cpuft
