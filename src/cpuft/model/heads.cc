// The task heads on the encoder's last hidden states x (N, H) (docs/tasks.md, the heads):
//   question answering       qa_outputs(dropout(x))                       logits (N, 2)
//   token classification     classifier(dropout(x))                       logits (N, num_labels)
//   sequence classification  h = x at each window's first token (B, H);
//                            DistilBERT classifier(dropout(relu(pre_classifier(h))))
//                            BERT       classifier(dropout(tanh(pooler.dense(h))))  logits (B, num_labels)
// The dropout is ModelConfig::head_dropout (qa_dropout, seq_classif_dropout, classifier_dropout or the
// hidden dropout, as each transformers class picks it). bf16 mode follows autocast as the encoder does:
// each product reads bf16 operands, its output and the ReLU / tanh output are rounded to bf16, and so
// is the gradient flowing back through them; the losses run in f32.
#include <algorithm>
#include <cmath>

#include "cpuft/kernels/class_loss.h"
#include "cpuft/kernels/cross_entropy.h"
#include "cpuft/kernels/dropout.h"
#include "cpuft/model/activations.h"
#include "cpuft/model/dropout_sites.h"
#include "cpuft/model/linear.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

// The row of window w's first token: w * seq_len in a padded batch, its offset in a packed one.
int64_t first_row(const QaModel::Batch& b, int64_t w) { return b.cu_seqlens ? b.cu_seqlens[w] : w * b.seq_len; }

}  // namespace

void QaModel::head_forward(const Batch& b, const Acts& a, const float* x, bool train, uint64_t seed) {
  const ModelConfig& c = config_;
  const HeadOffsets& h = table_.head();
  const float* P = params_.data();
  const int64_t N = a.rows, M = a.product_rows, H = c.hidden, W = h.width, B = b.batch;
  const float p = train ? c.head_dropout() : 0.f;
  if (!h.has_dense) {  // question answering, token classification: every token
    dropout_fwd(a.head_in, a.head_inb, x, N * H, p, seed, dropout_site::kHeadInput,
                static_cast<uint64_t>(b.row_offset) * static_cast<uint64_t>(b.seq_len * H));
    linear_fwd(a.logits, saved_operand(a.head_in, a.head_inb), gemm_weight(h.out.w), P + h.out.b, M, H, W);
    round_bf16_in_place(a.logits, N * W, bf16_);
    return;
  }
  for (int64_t w = 0; w < B; ++w) std::copy_n(x + first_row(b, w) * H, H, a.cls + w * H);
  linear_fwd(a.pooled, gemm_operand(a.cls, a.clsb, B * H), gemm_weight(h.dense.w), P + h.dense.b, B, H, H);
  if (c.family == ModelFamily::kDistilBert) {
    for (int64_t i = 0; i < B * H; ++i) a.pooled[i] = std::max(a.pooled[i], 0.f);
    round_bf16_in_place(a.pooled, B * H, bf16_);
  } else {
    round_bf16_in_place(a.pooled, B * H, bf16_);
    for (int64_t i = 0; i < B * H; ++i) a.pooled[i] = std::tanh(a.pooled[i]);
    round_bf16_in_place(a.pooled, B * H, bf16_);
  }
  dropout_fwd(a.head_in, a.head_inb, a.pooled, B * H, p, seed, dropout_site::kClassifierInput,
              static_cast<uint64_t>(b.row_offset) * static_cast<uint64_t>(H));
  linear_fwd(a.logits, saved_operand(a.head_in, a.head_inb), gemm_weight(h.out.w), P + h.out.b, B, H, W);
  round_bf16_in_place(a.logits, B * W, bf16_);
}

void QaModel::head_backward(const Batch& b, const Acts& a, uint64_t seed) {
  const ModelConfig& c = config_;
  const HeadOffsets& h = table_.head();
  float* G = grads_.data();
  const int64_t N = a.rows, H = c.hidden, W = h.width, B = b.batch;
  const float p = c.head_dropout();
  if (!h.has_dense) {
    linear_bwd(a.dres, G + h.out.w, G + h.out.b, a.dlogits, gemm_operand(a.dlogits, a.dy_b16, N * W),
               saved_operand(a.head_in, a.head_inb), gemm_weight(h.out.w), N, H, W, false);
    dropout_bwd(a.dres, nullptr, a.dres, N * H, p, seed, dropout_site::kHeadInput,
                static_cast<uint64_t>(b.row_offset) * static_cast<uint64_t>(b.seq_len * H));
    return;
  }
  // Sequence head: (B, H) gradients in the scratch a.da, a.db (each holds N H >= B H floats).
  linear_bwd(a.da, G + h.out.w, G + h.out.b, a.dlogits, gemm_operand(a.dlogits, a.dy_b16, B * W),
             saved_operand(a.head_in, a.head_inb), gemm_weight(h.out.w), B, H, W, false);
  dropout_bwd(a.da, nullptr, a.da, B * H, p, seed, dropout_site::kClassifierInput,
              static_cast<uint64_t>(b.row_offset) * static_cast<uint64_t>(H));
  round_bf16_in_place(a.da, B * H, bf16_);
  if (c.family == ModelFamily::kDistilBert) {
    for (int64_t i = 0; i < B * H; ++i) a.da[i] = a.pooled[i] > 0.f ? a.da[i] : 0.f;
  } else {
    for (int64_t i = 0; i < B * H; ++i) a.da[i] *= 1.f - a.pooled[i] * a.pooled[i];
    round_bf16_in_place(a.da, B * H, bf16_);
  }
  linear_bwd(a.db, G + h.dense.w, G + h.dense.b, a.da, gemm_operand(a.da, a.dy_b16, B * H),
             saved_operand(a.cls, a.clsb), gemm_weight(h.dense.w), B, H, H, false);
  // Only the first tokens reach the head: every other row's gradient is 0.
  std::fill(a.dres, a.dres + N * H, 0.f);
  for (int64_t w = 0; w < B; ++w) std::copy_n(a.db + w * H, H, a.dres + first_row(b, w) * H);
}

float QaModel::head_loss(const Batch& b, const Acts& a, float loss_scale) const {
  const HeadSpec& spec = config_.head;
  const int64_t W = table_.head().width;
  switch (spec.task) {
    case TaskHead::kQuestionAnswering:
      if (!b.start_positions || !b.end_positions) fail_internal("forward_backward: the batch has no start/end positions");
      return qa_cross_entropy(a.dlogits, a.logits, b.start_positions, b.end_positions, b.batch, b.seq_len, loss_scale)
          .loss;
    case TaskHead::kSequenceClassification:
      if (spec.regression) {
        if (!b.targets) fail_internal("forward_backward: the regression batch has no targets");
        return mse_loss(a.dlogits, a.logits, b.targets, b.batch, loss_scale);
      }
      if (!b.labels) fail_internal("forward_backward: the batch has no labels");
      return class_cross_entropy(a.dlogits, a.logits, b.labels, b.batch, W, loss_scale).loss;
    case TaskHead::kTokenClassification:
      if (!b.labels) fail_internal("forward_backward: the batch has no labels");
      return class_cross_entropy(a.dlogits, a.logits, b.labels, a.rows, W, loss_scale).loss;
  }
  return 0.f;
}

}  // namespace cpuft
