// Construction, parameter initialisation and the activation arena of QaModel. The forward and
// backward passes are in encoder_forward.cc and encoder_backward.cc, the heads in heads.cc.
#include "cpuft/model/qa_model.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "cpuft/kernels/gemm.h"
#include "cpuft/model/activations.h"
#include "cpuft/tensor/bf16.h"
#include "cpuft/util/error.h"
#include "cpuft/util/memory.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {

uint64_t QaModel::weight_bytes(const ModelConfig& config, bool bf16) {
  const ParamTable table(config);
  uint64_t bytes = table.total() * sizeof(float);
  if (bf16)
    for (const ParamEntry& e : table.entries()) bytes += e.gemm_weight ? e.numel * sizeof(uint16_t) : 0;
  return bytes;
}

QaModel::QaModel(ModelConfig config, bool bf16, uint64_t seed) : QaModel(std::move(config), bf16, Unfilled{}) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.f, config_.initializer_range);
  for (const ParamEntry& e : table_.entries()) {
    float* p = params_.data() + e.offset;
    const bool is_norm_weight = !e.decay && e.shape.size() == 1 && e.name.find("bias") == std::string::npos;
    if (e.decay) {
      for (size_t i = 0; i < e.numel; ++i) p[i] = normal(rng);
    } else if (is_norm_weight) {
      std::fill(p, p + e.numel, 1.f);
    }
  }
  const int64_t pad = config_.pad_token_id;
  if (pad >= 0 && pad < config_.vocab_size)
    std::fill_n(params_.data() + table_.embeddings().word + pad * config_.hidden, config_.hidden, 0.f);
  refresh_bf16_weights();
}

QaModel::QaModel(ModelConfig config, bool bf16, Unfilled)
    : config_(std::move(config)), table_(config_), bf16_(bf16) {
  if (config_.hidden % config_.heads != 0)
    fail_internal("model config: hidden size ", config_.hidden, " is not a multiple of the head count ", config_.heads);
  check_fits_in_memory(weight_bytes(config_, bf16_),
                       str_cat("model config: ", config_.layers, " layers of width ", config_.hidden, " (",
                               table_.total(), " parameters)"));
  params_ = AlignedVector<float>(table_.total());
  if (bf16_) {
    // Where bf16 products are native the products read only the copies in oneDNN's layout; elsewhere
    // the row-major bf16 copies.
    make_blocked_copies(WeightUse::kForward);
    if (blocked_[static_cast<int>(WeightUse::kForward)].by_param.empty()) {
      size_t total = 0;
      for (const ParamEntry& e : table_.entries())
        if (e.gemm_weight) {
          bf16_offset_[e.offset] = total;
          total += e.numel;
        }
      bf16_weights_ = AlignedVector<uint16_t>(total);
    }
  }
}

bool QaModel::make_blocked_copies(WeightUse use) {
  BlockedCopies& b = blocked_[static_cast<int>(use)];
  if (!bf16_ || !b.by_param.empty()) return false;
  // The weights as the products read them: a layer's q, k, v as one [3 hidden, hidden] weight at q.
  std::unordered_map<size_t, int64_t> rows_at;  // param offset -> rows of the product's weight (0: none)
  for (int64_t i = 0; i < config_.layers; ++i) {
    const LayerOffsets& l = table_.layer(static_cast<int>(i));
    rows_at[l.qkv.w] = 3 * config_.hidden;
    rows_at[l.k.w] = rows_at[l.v.w] = 0;
  }
  std::unordered_map<size_t, BlockedCopies::Copy> by_param;
  size_t total = 0;
  for (const ParamEntry& e : table_.entries()) {
    if (!e.gemm_weight) continue;
    const auto fused = rows_at.find(e.offset);
    const int64_t n = fused == rows_at.end() ? e.shape[0] : fused->second, k = e.shape[1];
    if (n == 0) continue;
    const size_t bytes = blocked_weight_bytes(n, k, use);
    if (bytes == 0) return false;  // bf16 products are not native here: no copies
    by_param[e.offset] = BlockedCopies::Copy{total, n, k};
    total += (bytes + 63) / 64 * 64;
  }
  check_fits_in_memory(total, "the weights' copies in oneDNN's layout");
  b.words = AlignedVector<uint64_t>(total / 8);
  b.by_param = std::move(by_param);
  return true;
}

void QaModel::refresh_blocked_copies() {
  for (const auto& [offset, c] : blocked_[0].by_param) refresh_blocked_copy(offset, c);
}

void QaModel::refresh_blocked_copies_ending_at(size_t param_end) {
  for (const auto& [offset, c] : blocked_[0].by_param)
    if (offset + static_cast<size_t>(c.n * c.k) == param_end) refresh_blocked_copy(offset, c);
}

void QaModel::refresh_blocked_copy(size_t offset, const BlockedCopies::Copy& c) {
  OpScope scope(Op::kWeightCopies);
  // Both copies of the weight in one pass over its f32 master, each value rounded once (block_weight).
  void* copy[2] = {nullptr, nullptr};
  for (BlockedCopies& b : blocked_) {
    const auto it = b.by_param.find(offset);
    if (it != b.by_param.end()) copy[&b - blocked_] = b.base() + it->second.at;
  }
  block_weight(copy[0], copy[1], params_.data() + offset, DType::kF32, c.n, c.k);
}

void QaModel::zero_grads() { std::fill(grads_.begin(), grads_.end(), 0.f); }

void QaModel::refresh_bf16_weights() {
  if (!bf16_) return;
  for (const ParamEntry& e : table_.entries())
    if (uint16_t* dst = bf16_copy(e.offset))
      f32_to_bf16_array(params_.data() + e.offset, dst, static_cast<int64_t>(e.numel));
  refresh_blocked_copies();
}

uint16_t* QaModel::bf16_copy(size_t offset) {
  const auto it = bf16_offset_.find(offset);
  return it == bf16_offset_.end() ? nullptr : bf16_weights_.data() + it->second;
}

GemmIn QaModel::gemm_weight(size_t offset) const {
  if (!bf16_) return {params_.data() + offset, DType::kF32};
  const auto plain = bf16_offset_.find(offset);
  GemmIn w{plain == bf16_offset_.end() ? nullptr : bf16_weights_.data() + plain->second, DType::kBf16};
  auto copy = [&](WeightUse use) -> const void* {
    const BlockedCopies& b = blocked_[static_cast<int>(use)];
    const auto it = b.by_param.find(offset);
    return it == b.by_param.end() ? nullptr : b.base() + it->second.at;
  };
  w.forward_blocked = copy(WeightUse::kForward);
  w.backward_blocked = copy(WeightUse::kBackwardData);
  return w;
}

int64_t QaModel::default_group_rows(int threads, bool bf16) {
  const int64_t per_thread = int64_t{768} * threads;
  return bf16 ? per_thread : std::max(kGroupRows, per_thread);
}

void QaModel::set_group_rows(int64_t rows) {
  if (rows < 1) fail_internal("set_group_rows: ", rows, " rows, expected at least 1");
  group_rows_ = rows;
}

size_t QaModel::arena_floats(const ModelConfig& config, bool bf16, int batch, int seq_len, int threads, bool training,
                             int64_t group_rows) {
  int64_t rows = static_cast<int64_t>(batch) * seq_len;
  int windows = batch;
  if (!training) {
    rows = std::min(rows, std::max<int64_t>(group_rows, seq_len));
    windows = static_cast<int>(std::min<int64_t>(batch, rows));
  }
  Acts a;
  Acts::plan(a, config, bf16, rows, windows, seq_len, threads, training, nullptr);
  return a.floats;
}

size_t QaModel::activation_bytes(const ModelConfig& config, bool bf16, int batch, int seq_len, bool training) {
  const int threads = std::max(1, omp_get_max_threads());
  return arena_floats(config, bf16, batch, seq_len, threads, training, default_group_rows(threads, bf16)) *
         sizeof(float);
}

size_t QaModel::reserve(int batch, int seq_len, bool training) {
  if (batch <= 0 || seq_len <= 0)
    fail_internal("reserve: batch ", batch, " and seq_len ", seq_len, " must both be positive");
  if (seq_len > config_.max_position_embeddings)
    fail_internal("reserve: seq_len ", seq_len, " exceeds max_position_embeddings ", config_.max_position_embeddings);
  // The per-thread attention tiles are sized by the thread count of the first reservation.
  if (!view_) {
    max_threads_ = std::max(1, omp_get_max_threads());
    view_ = std::make_shared<Acts>();
  }
  const size_t floats = arena_floats(config_, bf16_, batch, seq_len, max_threads_, training, group_rows());
  if (floats > acts_.size()) acts_ = AlignedVector<float>(floats);
  if (training && grads_.empty()) grads_ = AlignedVector<float>(table_.total());  // evaluation needs no gradients
  if (training && make_blocked_copies(WeightUse::kBackwardData))  // nor the input gradients' weights
    refresh_blocked_copies();
  return acts_.size() * sizeof(float);
}

const QaModel::Acts& QaModel::layout(int64_t rows, int batch, int seq_len, bool training) {
  if (!view_) fail_internal("batch (", batch, ", ", seq_len, "): no activation arena; call reserve() before the first step");
  if (seq_len > config_.max_position_embeddings)
    fail_internal("batch (", batch, ", ", seq_len, "): seq_len exceeds max_position_embeddings ", config_.max_position_embeddings);
  Acts& a = *view_;
  Acts::plan(a, config_, bf16_, rows, batch, seq_len, max_threads_, training, nullptr);
  if (a.floats > acts_.size())
    fail_internal("batch (", batch, ", ", seq_len, ") of ", rows, " tokens needs ", a.floats * sizeof(float) >> 20,
         " MiB of activations", training ? " for training" : " for a forward pass", ", more than the ",
         (acts_.size() * sizeof(float)) >> 20, " MiB reserved; call reserve() with the largest batch first");
  Acts::plan(a, config_, bf16_, rows, batch, seq_len, max_threads_, training, acts_.data());
  return a;
}

void QaModel::check_batch(const Batch& b) const {
  if (b.batch <= 0 || b.seq_len <= 0 || !b.input_ids)
    fail_internal("batch: needs input_ids and positive batch/seq_len, got batch ", b.batch, " seq_len ", b.seq_len);
  int64_t n = static_cast<int64_t>(b.batch) * b.seq_len;
  if (b.cu_seqlens) {
    if (b.cu_seqlens[0] != 0) fail_internal("batch: cu_seqlens[0] = ", b.cu_seqlens[0], ", expected 0");
    for (int w = 0; w < b.batch; ++w) {
      const int64_t len = static_cast<int64_t>(b.cu_seqlens[w + 1]) - b.cu_seqlens[w];
      if (len < 1 || len > b.seq_len)
        fail_internal("batch: window ", w, " has ", len, " tokens, expected 1 .. seq_len ", b.seq_len);
    }
    n = b.cu_seqlens[b.batch];
  }
  // Positions in messages: [window][position] of a padded batch, [token] of a packed one.
  auto at = [&](int64_t i) { return b.cu_seqlens ? str_cat("[", i, "]") : str_cat("[", i / b.seq_len, "][", i % b.seq_len, "]"); };
  for (int64_t i = 0; i < n; ++i) {
    if (b.input_ids[i] < 0 || b.input_ids[i] >= config_.vocab_size)
      fail("batch: input_ids", at(i), " = ", b.input_ids[i], ", expected 0 .. ", config_.vocab_size - 1);
    if (config_.family == ModelFamily::kBert && b.token_type_ids &&
        (b.token_type_ids[i] < 0 || b.token_type_ids[i] >= std::max<int64_t>(1, config_.type_vocab_size)))
      fail("batch: token_type_ids", at(i), " = ", int(b.token_type_ids[i]), ", expected 0 .. ",
           config_.type_vocab_size - 1);
  }
}

namespace {

// The tokens of window w that are computed: a packed batch's all; a padded batch's up to and including
// its last unmasked one (the rest is padding, which no real token attends to), all seq_len when none
// is unmasked (transformers then attends uniformly over every position).
int window_length(const QaModel::Batch& b, int w) {
  if (b.cu_seqlens) return b.cu_seqlens[w + 1] - b.cu_seqlens[w];
  if (!b.attention_mask) return b.seq_len;
  const int8_t* m = b.attention_mask + static_cast<int64_t>(w) * b.seq_len;
  for (int t = b.seq_len; t > 0; --t)
    if (m[t - 1]) return t;
  return b.seq_len;
}

}  // namespace

QaModel::Batch QaModel::pack(const Batch& b, const Acts& a) const {
  Batch p;
  p.batch = b.batch;
  p.seq_len = b.seq_len;
  p.row_offset = b.row_offset;
  p.cu_seqlens = a.packed_cu;
  p.input_ids = a.packed_ids;
  p.token_type_ids = b.token_type_ids ? a.packed_types : nullptr;
  bool holes = false;  // a masked token inside a window: the packed batch then keeps the mask
  for (int w = 0; w < b.batch; ++w) {
    const int64_t from = static_cast<int64_t>(w) * b.seq_len, to = a.packed_cu[w];
    const int len = a.packed_cu[w + 1] - a.packed_cu[w];
    std::copy_n(b.input_ids + from, len, a.packed_ids + to);
    if (b.token_type_ids) std::copy_n(b.token_type_ids + from, len, a.packed_types + to);
    if (b.attention_mask) {
      std::copy_n(b.attention_mask + from, len, a.packed_mask + to);
      holes |= std::find(b.attention_mask + from, b.attention_mask + from + len, 0) != b.attention_mask + from + len;
    }
  }
  p.attention_mask = holes ? a.packed_mask : nullptr;
  return p;
}

float QaModel::forward_backward(const Batch& b, uint64_t dropout_seed, float loss_scale) {
  if (int8_) fail_internal("forward_backward: an int8-quantized model runs forward only; train the model it was quantized from");
  check_batch(b);
  if (b.cu_seqlens) fail_internal("forward_backward: training needs a padded batch (transformers' loss covers every position)");
  const Acts& a = layout(static_cast<int64_t>(b.batch) * b.seq_len, b.batch, b.seq_len, /*training=*/true);
  forward_pass(b, a, /*train=*/true, dropout_seed);
  const float loss = head_loss(b, a, loss_scale);
  backward_pass(b, a, dropout_seed);
  return loss;
}

void QaModel::forward_packed(const Batch& b, const int32_t* lengths) {
  // The real tokens' count sizes the layout; the window offsets then go into it, and the tokens.
  int64_t tokens = 0;
  for (int w = 0; w < b.batch; ++w) tokens += lengths[w];
  const Acts& a = layout(tokens, b.batch, b.seq_len, /*training=*/false);
  a.packed_cu[0] = 0;
  for (int w = 0; w < b.batch; ++w) a.packed_cu[w + 1] = a.packed_cu[w] + lengths[w];
  if (!b.cu_seqlens) {
    forward_pass(pack(b, a), a, /*train=*/false, 0);
    return;
  }
  Batch packed = b;  // already packed: its windows' offsets from its first token are the arena's
  packed.cu_seqlens = a.packed_cu;
  forward_pass(packed, a, /*train=*/false, 0);
}

void QaModel::forward_groups(const Batch& b, const std::function<void(int first, int count)>& done) {
  check_batch(b);
  lengths_.resize(static_cast<size_t>(b.batch));
  for (int w = 0; w < b.batch; ++w) lengths_[static_cast<size_t>(w)] = window_length(b, w);
  const int64_t budget = group_rows();
  for (int first = 0, end = 0; first < b.batch; first = end) {
    int64_t rows = lengths_[static_cast<size_t>(first)];
    for (end = first + 1; end < b.batch && rows + lengths_[static_cast<size_t>(end)] <= budget; ++end)
      rows += lengths_[static_cast<size_t>(end)];
    // Windows [first, end) as a batch of their own: a padded batch's rows from window `first`, a packed
    // batch's tokens from it (its cu_seqlens then only say that it is packed: forward_packed counts the
    // offsets from the group's first token).
    Batch g;
    g.batch = end - first;
    g.seq_len = b.seq_len;
    g.row_offset = b.row_offset + first;
    const int64_t token = b.cu_seqlens ? b.cu_seqlens[first] : static_cast<int64_t>(first) * b.seq_len;
    g.cu_seqlens = b.cu_seqlens ? b.cu_seqlens + first : nullptr;
    g.input_ids = b.input_ids + token;
    g.token_type_ids = b.token_type_ids ? b.token_type_ids + token : nullptr;
    g.attention_mask = b.attention_mask ? b.attention_mask + token : nullptr;
    forward_packed(g, lengths_.data() + first);
    done(first, g.batch);
  }
}

void QaModel::forward(const Batch& b, float* start_logits, float* end_logits) {
  if (config_.head.task != TaskHead::kQuestionAnswering)
    fail_internal("forward: the model has a ", task_name(config_.head.task), " head; use forward_classes");
  forward_groups(b, [&](int first, int count) {
    const Acts& a = *view_;
    for (int i = 0; i < count; ++i) {
      float* s = start_logits + static_cast<int64_t>(first + i) * b.seq_len;
      float* e = end_logits + static_cast<int64_t>(first + i) * b.seq_len;
      const int32_t row = a.packed_cu[i], len = a.packed_cu[i + 1] - row;
      for (int t = 0; t < len; ++t) {
        s[t] = a.logits[2 * (row + t)];
        e[t] = a.logits[2 * (row + t) + 1];
      }
      std::fill(s + len, s + b.seq_len, kPadLogit);
      std::fill(e + len, e + b.seq_len, kPadLogit);
    }
  });
}

void QaModel::forward_classes(const Batch& b, float* logits) {
  const TaskHead task = config_.head.task;
  if (task == TaskHead::kQuestionAnswering) fail_internal("forward_classes: the model has a question-answering head");
  const int64_t W = table_.head().width;
  forward_groups(b, [&](int first, int count) {
    const Acts& a = *view_;
    if (task == TaskHead::kSequenceClassification) {
      std::copy_n(a.logits, count * W, logits + first * W);
      return;
    }
    for (int i = 0; i < count; ++i) {
      float* out = logits + static_cast<int64_t>(first + i) * b.seq_len * W;
      const int64_t row = a.packed_cu[i], len = a.packed_cu[i + 1] - row;
      std::copy_n(a.logits + row * W, len * W, out);
      std::fill(out + len * W, out + b.seq_len * W, kPadLogit);
    }
  });
}

}  // namespace cpuft
