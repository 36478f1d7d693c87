// QaModel backward pass: the mirror of encoder_forward.cc, last step first. Parameter gradients are
// added into grads_; activation gradients are written into the scratch buffers of the arena, and
// a.dres carries the gradient of the residual stream from one layer down to the next.

#include "cpuft/kernels/dropout.h"
#include "cpuft/kernels/embedding.h"
#include "cpuft/kernels/gelu.h"
#include "cpuft/kernels/layernorm.h"
#include "cpuft/model/activations.h"
#include "cpuft/model/attention.h"
#include "cpuft/model/dropout_sites.h"
#include "cpuft/model/linear.h"
#include "cpuft/tensor/bf16.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {

void QaModel::backward_pass(const Batch& b, const Acts& a, uint64_t seed) {
  const ModelConfig& c = config_;
  const bool distil = c.family == ModelFamily::kDistilBert;
  const int64_t B = b.batch, T = b.seq_len, N = a.rows, H = c.hidden, I = c.intermediate, NH = c.heads;
  const int64_t HD = c.head_dim();
  const float* P = params_.data();
  float* G = grads_.data();
  const EmbeddingOffsets& eo = table_.embeddings();
  const float hidden_p = c.hidden_dropout, attn_p = c.attention_dropout;
  // Dropout masks are numbered by the row's place in the GLOBAL batch (b.row_offset), so a rank's
  // share of a global batch draws the masks one process with the whole batch would draw.
  const uint64_t hidden_first = static_cast<uint64_t>(b.row_offset) * static_cast<uint64_t>(T * H);
  const uint64_t attn_first = static_cast<uint64_t>(b.row_offset) * static_cast<uint64_t>(NH * T * T);
  auto ready = [&](size_t begin, size_t end) {
    if (grad_ready_) grad_ready_(begin, end);
  };

  head_backward(b, a, seed);  // model/heads.cc: the gradient of the last hidden states into a.dres
  ready(table_.head().begin, table_.head().end);

  const ScoreScale scale = score_scale(distil, HD);
  const AttentionShape shape{B, T, H, NH};
  // The three (N, H) gradients of a layer, without a copy: a.dres the residual stream's (into the
  // layer's output, then into its input), a.da the residual's inside the layer (into h1), a.db the
  // context's (f32 mode). Each sublayer's output gradient is its dropout's (or, without one, the
  // residual's itself): the dropout writes it beside the residual's, which the sublayer's first product
  // then completes (+=).
  float *const dres = a.dres, *const dh1 = a.da, *const dctx32 = a.db;
  for (int64_t li = c.layers - 1; li >= 0; --li) {
    const LayerOffsets& lo = table_.layer(static_cast<int>(li));
    const Acts::Layer& L = a.layers[static_cast<size_t>(li)];

    // Second LayerNorm, FFN-output dropout, lin2, GELU, lin1 (+ the residual into h1).
    layernorm_bwd(dh1, G + lo.ln2.w, G + lo.ln2.b, dres, L.res2, L.mean2, L.rstd2, P + lo.ln2.w, static_cast<int>(N),
                  static_cast<int>(H));
    // The dropout writes lin2's output gradient (into dres, free until lin1 completes dh1) and its bf16
    // copy (bf16 mode) in one pass.
    dropout_bwd(dres, a.dy_b16, dh1, N * H, hidden_p, seed, dropout_site::ffn_output(li), hidden_first);
    // lin2's input: kept per layer as bf16 (bf16 mode), recomputed into the one f32 buffer (f32 mode), where
    // the pre-activation becomes the GELU's gradient factor in the same pass.
    if (!bf16_) gelu_recompute(L.g, L.f1, N, I);
    // lin2's input gradient: f32 (a.di), or bf16 as its bf16 product writes it (bf16 mode, as autocast's: a.di16).
    linear_bwd(bf16_ ? GemmOut(a.di16) : GemmOut(a.di), G + lo.ff2.w, G + lo.ff2.b, dres, saved_operand(dres, a.dy_b16),
               saved_operand(L.g, L.gb), gemm_weight(lo.ff2.w), N, I, H, false);
    ready(lo.ff2.w, lo.end);  // ff2 and ln2: the gradients of a layer go out in four parts as they finish
    // The GELU's gradient, lin1's bias gradient and lin1's bf16 output gradient in one pass.
    if (bf16_)
      gelu_bwd(a.di, a.dy_b16, G + lo.ff1.b, a.di, a.di16, L.f1, L.f1b, N, I);
    else
      gelu_bwd_factored(a.di, G + lo.ff1.b, a.di, L.f1, N, I);
    linear_bwd(dh1, G + lo.ff1.w, /*dbias=*/nullptr, nullptr, saved_operand(a.di, a.dy_b16),
               saved_operand(L.h1, L.h1b), gemm_weight(lo.ff1.w), N, H, I, true);
    ready(lo.ff1.w, lo.ff2.w);

    // First LayerNorm (into dres: the layer input's gradient through the residual), output-projection
    // dropout (BERT), output projection.
    layernorm_bwd(dres, G + lo.ln1.w, G + lo.ln1.b, dh1, L.res1, L.mean1, L.rstd1, P + lo.ln1.w, static_cast<int>(N),
                  static_cast<int>(H));
    float* dout = dres;  // DistilBERT: no dropout, the projection's output gradient is the residual's
    if (distil) {
      gemm_operand(dres, a.dy_b16, N * H);
    } else {  // with the bf16 copy, as above
      dout = dh1;
      dropout_bwd(dout, a.dy_b16, dres, N * H, hidden_p, seed, dropout_site::attention_output(li), hidden_first);
    }
    // The context gradient: f32, or bf16 as the product writes it (bf16 mode), where the attention core reads it.
    const GemmOut dctx = bf16_ ? GemmOut(a.dctx16) : GemmOut(dctx32);
    linear_bwd(dctx, G + lo.o.w, G + lo.o.b, dout, saved_operand(dout, a.dy_b16), saved_operand(L.ctx, L.ctxb),
               gemm_weight(lo.o.w), N, H, H, false);
    ready(lo.o.w, lo.ff1.w);  // o and ln1

    // bf16 mode: the attention core writes q, k and v's gradient as bf16 only and adds the projection's
    // bias gradient itself, from its f32 sums.
    attention_bwd(a.dqkv, a.dqkv16, bf16_ ? G + lo.qkv.b : nullptr, a.tiles, L.attn_stats, dctx32, a.dctx16, L.qkv,
                  L.qkv16, b.attention_mask, shape, scale.scores, scale.dq,
                  AttentionDropout{attn_p, seed, dropout_site::attention(li), attn_first, L.attn_keep});

    // The q, k, v projection (one product): its input gradient adds into the residual-stream gradient.
    linear_bwd(dres, G + lo.qkv.w, bf16_ ? nullptr : G + lo.qkv.b, a.dqkv, saved_operand(a.dqkv, a.dqkv16),
               saved_operand(L.x, L.xb), gemm_weight(lo.qkv.w), N, H, 3 * H, true);
    ready(lo.begin, lo.o.w);  // q, k, v
  }

  // Embeddings: dropout, LayerNorm, then scatter-add into the tables (no gradient into the pad row).
  dropout_bwd(a.dres, nullptr, a.dres, N * H, hidden_p, seed, dropout_site::kEmbeddings, hidden_first);
  layernorm_bwd(a.da, G + eo.ln.w, G + eo.ln.b, a.dres, a.emb_sum, a.emb_mean, a.emb_rstd, P + eo.ln.w, static_cast<int>(N),
                  static_cast<int>(H));
  {
    OpScope scope(Op::kEmbedding);
    const bool types = !distil && c.type_vocab_size > 0;
    embedding_bwd(G + eo.word, G + eo.position, types ? G + eo.token_type : nullptr, a.da, b.input_ids,
                  types ? b.token_type_ids : nullptr, a.positions, N, static_cast<int>(H),
                  c.pad_token_id >= 0 && c.pad_token_id < c.vocab_size ? static_cast<int>(c.pad_token_id) : -1);
  }
  ready(eo.begin, eo.end);
}

}  // namespace cpuft
