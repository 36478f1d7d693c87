// QaModel forward pass: embeddings, transformer blocks, then the head (model/heads.cc; docs/parity.md, Model).
// Each step writes the activations backward needs into the arena (activations.h).
#include <algorithm>
#include <cmath>

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
namespace {

// DistilBERT with a head size whose square root is not a power of two: q (the first H columns of each
// of the N rows of q | k | v) divided by sqrt(head_dim), in f32 (qkv) or, in bf16 mode, on the bf16
// values the projection wrote, rounded again (autocast divides its bf16 q in bf16).
void divide_q(float* qkv, uint16_t* qkv16, int64_t N, int64_t H, float divisor) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < N; ++r)
    for (int64_t j = 0; j < H; ++j) {
      const int64_t i = r * 3 * H + j;
      if (qkv16)
        qkv16[i] = f32_to_bf16(bf16_to_f32(qkv16[i]) / divisor);
      else
        qkv[i] /= divisor;
    }
}

}  // namespace

void QaModel::forward_pass(const Batch& b, const Acts& a, bool train, uint64_t seed) {
  const ModelConfig& c = config_;
  const bool distil = c.family == ModelFamily::kDistilBert;
  // Token rows: B windows of T (padded), or of their own lengths back to back (packed, b.cu_seqlens).
  const int64_t B = b.batch, T = b.seq_len, N = a.rows, H = c.hidden, I = c.intermediate, NH = c.heads;
  const int64_t M = a.product_rows;  // the rows the matrix products run over (activations.h)
  const int64_t HD = c.head_dim();
  const float* P = params_.data();
  const EmbeddingOffsets& eo = table_.embeddings();
  const float hidden_p = train ? c.hidden_dropout : 0.f;
  const float attn_p = train ? c.attention_dropout : 0.f;
  // Dropout masks are numbered by the row's place in the GLOBAL batch (b.row_offset), so a rank's
  // share of a global batch draws the masks one process with the whole batch would draw.
  const uint64_t hidden_first = static_cast<uint64_t>(b.row_offset) * static_cast<uint64_t>(T * H);
  const uint64_t attn_first = static_cast<uint64_t>(b.row_offset) * static_cast<uint64_t>(NH * T * T);

  // Embeddings: (word + token_type) + position, LayerNorm, dropout.
  if (b.cu_seqlens) {
    for (int64_t w = 0; w < B; ++w)
      for (int32_t r = b.cu_seqlens[w]; r < b.cu_seqlens[w + 1]; ++r) a.positions[r] = r - b.cu_seqlens[w];
  } else {
    for (int64_t r = 0; r < N; ++r) a.positions[r] = static_cast<int32_t>(r % T);
  }
  {
    OpScope scope(Op::kEmbedding);
    const bool types = !distil && c.type_vocab_size > 0;
    embedding_fwd(a.emb_sum, b.input_ids, types ? b.token_type_ids : nullptr, a.positions, P + eo.word,
                  P + eo.position, types ? P + eo.token_type : nullptr, N, static_cast<int>(H),
                  static_cast<int>(c.vocab_size), static_cast<int>(std::max<int64_t>(1, c.type_vocab_size)),
                  static_cast<int>(c.max_position_embeddings));
  }
  // bf16 mode: layer 0's bf16 input is written by the pass that writes x0 (the LayerNorm in eval,
  // where the dropout is the identity in place; the dropout in training), as each later layer's is by
  // the LayerNorm that ends the layer before: no separate conversion pass.
  uint16_t* const xb0 = a.layers.front().xb;
  layernorm_fwd(a.emb_ln, train ? nullptr : xb0, a.emb_mean, a.emb_rstd, nullptr, a.emb_sum, nullptr, nullptr,
                P + eo.ln.w, P + eo.ln.b, static_cast<int>(N), static_cast<int>(H), c.layer_norm_eps);
  dropout_fwd(a.x0, train ? xb0 : nullptr, a.emb_ln, N * H, hidden_p, seed, dropout_site::kEmbeddings, hidden_first);

  // A sublayer's last product (the output projection, the FFN's second: K inputs, H outputs) and its
  // dropout (p 0: none), which the LayerNorm after it reads (its f32 or its bf16 values): in f32 mode the
  // product into out, dropped in place; in bf16 mode the product's bf16 output, as autocast's product
  // leaves it (a.proj16), dropped into out when p > 0.
  struct SublayerOut {
    const float* f32;
    const uint16_t* bf16;
  };
  auto sublayer_out = [&](float* out, const float* in, const uint16_t* in16, const LinearOffsets& l, int64_t K, float p,
                          uint64_t site) -> SublayerOut {
    if (!bf16_) {
      linear(out, in, saved_operand(in, in16), l, M, K, H);
      dropout_fwd(out, nullptr, out, N * H, p, seed, site, hidden_first);
      return {out, nullptr};
    }
    linear_bf16_fwd(a.proj16, saved_operand(in, in16), gemm_weight(l.w), P + l.b, M, K, H);
    if (p == 0.f) return {nullptr, a.proj16};
    dropout_fwd_bf16_in(out, a.proj16, N * H, p, seed, site, hidden_first);
    return {out, nullptr};
  };

  const float* x = a.x0;
  const ScoreScale scale = score_scale(distil, HD);
  const AttentionShape shape{B, T, H, NH, b.cu_seqlens};
  for (int64_t li = 0; li < c.layers; ++li) {
    const LayerOffsets& lo = table_.layer(static_cast<int>(li));
    const Acts::Layer& L = a.layers[static_cast<size_t>(li)];
    // q, k, v as one product: row r of qkv is q | k | v (bf16 mode: bf16, as the product writes it).
    if (bf16_)
      linear_bf16_fwd(L.qkv16, saved_operand(L.x, L.xb), gemm_weight(lo.qkv.w), P + lo.qkv.b, M, H, 3 * H);
    else
      linear(L.qkv, L.x, saved_operand(L.x, L.xb), lo.qkv, M, H, 3 * H);
    if (scale.q_divisor > 0.f) divide_q(L.qkv, L.qkv16, N, H, scale.q_divisor);

    attention_fwd(L.ctx, L.ctxb, a.tiles, L.attn_stats, L.qkv, L.qkv16, b.attention_mask, shape, scale.scores,
                  AttentionDropout{attn_p, seed, dropout_site::attention(li), attn_first, L.attn_keep});

    // Output projection (+ dropout for BERT), residual, LayerNorm. The LayerNorms keep their input (the
    // residual sum) for backward only: forward only, it is not written.
    const SublayerOut o =
        sublayer_out(L.res1, L.ctx, L.ctxb, lo.o, H, distil ? 0.f : hidden_p, dropout_site::attention_output(li));
    layernorm_fwd(L.h1, L.h1b, L.mean1, L.rstd1, train ? L.res1 : nullptr, o.f32, o.bf16, x, P + lo.ln1.w, P + lo.ln1.b,
                  static_cast<int>(N), static_cast<int>(H), c.layer_norm_eps);

    // FFN: lin1, GELU, lin2, dropout, residual, LayerNorm.
    if (L.f1) {  // f32
      linear(L.f1, L.h1, saved_operand(L.h1, L.h1b), lo.ff1, M, H, I);
      gelu_fwd(L.g, nullptr, L.f1, nullptr, N, I);
    } else {
      // bf16: the product's bf16 pre-activation, as autocast keeps it (training keeps it for backward; a
      // forward only writes it where the GELU goes), then the GELU of those values: the same bits either way.
      uint16_t* const pre = L.f1b ? L.f1b : L.gb;
      linear_bf16_fwd(pre, saved_operand(L.h1, L.h1b), gemm_weight(lo.ff1.w), P + lo.ff1.b, M, H, I);
      gelu_fwd(nullptr, L.gb, nullptr, pre, N, I);
    }
    const SublayerOut f = sublayer_out(L.res2, L.g, L.gb, lo.ff2, I, hidden_p, dropout_site::ffn_output(li));
    uint16_t* const next_xb = li + 1 < c.layers ? a.layers[static_cast<size_t>(li + 1)].xb : nullptr;
    layernorm_fwd(L.h2, next_xb, L.mean2, L.rstd2, train ? L.res2 : nullptr, f.f32, f.bf16, L.h1, P + lo.ln2.w,
                  P + lo.ln2.b, static_cast<int>(N), static_cast<int>(H), c.layer_norm_eps);
    x = L.h2;
  }

  head_forward(b, a, x, train, seed);  // model/heads.cc
}

}  // namespace cpuft
