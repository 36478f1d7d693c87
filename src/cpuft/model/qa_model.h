// The encoder (DistilBERT or BERT/MiniLM) with its task head (config().head: qa_outputs, a sequence
// classifier or a token classifier, model/heads.cc and docs/tasks.md) with explicit forward and backward per
// layer, in the style of llm.c: three flat arenas for parameters (f32 master), gradients (f32, same
// layout) and, in bf16 mode, the bf16 copies of the matrix-product weights, plus one activation
// arena sized by reserve(batch, seq_len) before the first step (no allocation inside a step).
//
// Families (docs/parity.md, Model):
//   DistilBERT: q divided by sqrt(head_dim) before q k^T, padded keys masked_fill'ed with the lowest
//               float, no dropout after out_lin, qa_dropout before qa_outputs.
//   BERT:       token-type embeddings, q k^T multiplied by 1/sqrt(head_dim) after the product,
//               additive mask, dropout after attention.output.dense, no dropout before qa_outputs.
//   Both masks are applied by replacing a padded key's score with the lowest float: adding the
//   lowest float gives the same probabilities (exactly 0 for padded keys) and the same gradients.
// BF16 mixed precision (docs/parity.md, Model; docs/ARCHITECTURE.md): f32 master weights; every matrix product reads
// bf16 operands (bf16 weight copies, activations and output gradients rounded to bf16) and
// accumulates in f32; LayerNorm, softmax, GELU, loss, residual stream and gradients stay f32; the
// logits are rounded to bf16 as autocast produces them. The linear layers' operands are stored as
// bf16 (uint16) and run as oneDNN bf16 matmuls (AMX, AVX512_BF16; emulated in f32 with the same
// numbers where oneDNN has none, see kernels/gemm.h); q, k, v and the attention output are bf16
// storage, and the attention core's tile products are bf16 products (model/attention.h).
// Dropout (train mode) uses a stateless counter-based mask from (seed, site, index): the same seed
// gives the same mask whatever the thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cpuft/io/hf_config.h"
#include "cpuft/kernels/gemm.h"
#include "cpuft/model/int8_linear.h"
#include "cpuft/model/linear.h"
#include "cpuft/model/param_table.h"
#include "cpuft/util/aligned_vector.h"
#include "cpuft/util/log.h"

namespace cpuft {

class QaModel {
 public:
  // A model with every parameter initialised as transformers' _init_weights does:
  // Linear and embedding weights ~ N(0, initializer_range) from `seed`, pad row and biases 0,
  // LayerNorm weight 1 and bias 0. Throws before allocating when the weights would not fit in this
  // machine's memory (saying how much the config asks for).
  QaModel(ModelConfig config, bool bf16, uint64_t seed = 42);
  // Bytes of the weights (f32 masters, plus the bf16 copies in bf16 mode) of a model of `config`.
  static uint64_t weight_bytes(const ModelConfig& config, bool bf16);
  // Move-only: the activation layout points into this model's own arena.
  QaModel(QaModel&&) = default;
  QaModel& operator=(QaModel&&) = default;
  QaModel(const QaModel&) = delete;
  QaModel& operator=(const QaModel&) = delete;

  // Loads config.json + model.safetensors from a HF model directory. Legacy gamma/beta names and a
  // missing base-model prefix are accepted; cls.*, vocab_*, position_ids and other extra tensors
  // (the pooler too, but for BERT sequence classification) are dropped with one notice; missing head
  // tensors (qa_outputs, pre_classifier, classifier, BERT's pooler) are initialised N(0, range) from
  // `seed` (bias 0) with one notice; any other missing tensor or a wrong shape throws cpuft::Error
  // naming the file, the tensor, the shape found and the shape expected. Every shape is checked
  // against the safetensors header before anything is allocated. A tensor holding NaN or infinite
  // values gets one warning naming it. Notices and warnings go to `notices` (util/log.h).
  // The head is the one config.json names (hf_config.h), or `head` when given (the task of a run).
  static QaModel from_pretrained(const std::string& dir, bool bf16, uint64_t seed, const NoticeSink& notices,
                                 const HeadSpec* head = nullptr);
  // Writes dir/model.safetensors (HF names, F32) and dir/config.json (architectures, and a
  // classification head's id2label, label2id, problem_type: save_model_config), each atomically. The
  // directory must exist.
  void save_pretrained(const std::string& dir) const;

  // ---- Int8 (model/int8_model.cc, docs/quantization.md). A quantized directory (written by
  // `cpuft quantize`) loads for evaluation and prediction only: its encoder's linear layers run as
  // int8 products, the rest (embeddings, LayerNorm, attention, GELU, the task head) in f32. Every
  // tensor is checked (dtype, shape, finite positive scales); a bad one throws cpuft::Error naming
  // the file and the tensor. from_pretrained refuses such a directory. The f32 parameter slots of
  // the int8 weights are not kept (their pages are released; params() reads zeros there).
  static QaModel from_int8(const std::string& dir, const NoticeSink& notices);
  bool int8() const { return int8_ != nullptr; }
  const Int8Weights* int8_weights() const { return int8_.get(); }
  // Called with the input of every encoder linear layer during forward (calibration records ranges):
  // x holds the real tokens of `windows` windows back to back, window w = rows
  // [window_offsets[w], window_offsets[w + 1]) of `cols` values each.
  using LinearInputObserver = std::function<void(size_t weight_offset, const float* x, int64_t cols,
                                                 const int32_t* window_offsets, int windows)>;
  void set_linear_input_observer(LinearInputObserver observer) { observer_ = std::move(observer); }

  const ModelConfig& config() const { return config_; }
  const ParamTable& table() const { return table_; }
  bool bf16() const { return bf16_; }
  size_t num_params() const { return table_.total(); }
  float* params() { return params_.data(); }
  const float* params() const { return params_.data(); }
  // Parameter gradients: allocated by the first reserve(..., training = true); null before.
  float* grads() { return grads_.data(); }
  const float* grads() const { return grads_.data(); }

  // Grows the activation arena to hold a training step (forward_backward) of (batch, seq_len), or with
  // training = false only a forward pass (forward) of one group of windows (group_rows()), which needs
  // no activations for backward and so far less memory. Later steps may use any batch and seq_len
  // that fit. Returns the arena size in bytes (the peak activation memory of a step): the largest of
  // all reservations.
  size_t reserve(int batch, int seq_len, bool training = true);
  // Activation-arena bytes that reserve(batch, seq_len, training) needs, without allocating.
  static size_t activation_bytes(const ModelConfig& config, bool bf16, int batch, int seq_len, bool training = true);

  // A forward pass (forward, forward_classes) runs its batch in groups of whole windows, in order, of at
  // most group_rows() real tokens each (a longer window alone), so that a forward-only arena holds one
  // group and stops growing with the batch. The logits are those of the whole batch at once up to the
  // rounding of products over other row counts, as with packing.
  int64_t group_rows() const { return group_rows_ > 0 ? group_rows_ : default_group_rows(max_threads_, bf16_); }
  // 768 rows per thread (two windows of 384), so that every thread has (window, head) tasks of attention
  // in a group; in f32 mode at least kGroupRows. The bf16 products run 15% faster over 768 rows a thread
  // than over 256 and no faster over thousands, while in groups this small the passes between them
  // (LayerNorm, the residuals) still find much of what the last product wrote in cache; f32 products
  // lose a little speed below a few thousand rows (docs/performance.md, "Evaluation in smaller groups",
  // "Evaluation groups of 768 rows a thread").
  static int64_t default_group_rows(int threads, bool bf16);
  static constexpr int64_t kGroupRows = 4096;
  // Sets group_rows() (tests use small groups); call it before reserve(), which sizes the arena by it.
  void set_group_rows(int64_t rows);

  // A batch of `batch` windows, padded or packed. Padded (cu_seqlens null): every array holds
  // (batch, seq_len) tokens, each window right-padded to seq_len. Packed (forward only): the windows'
  // tokens back to back with no padding, window w = tokens [cu_seqlens[w], cu_seqlens[w + 1]), each
  // at most seq_len long; the arrays hold cu_seqlens[batch] tokens.
  struct Batch {
    const int32_t* input_ids = nullptr;       // (batch, seq_len) or (tokens)
    const int8_t* token_type_ids = nullptr;   // null means all 0; ignored by DistilBERT
    const int8_t* attention_mask = nullptr;   // 1 attend, 0 padding; null means all 1
    const int32_t* start_positions = nullptr; // (batch) question answering
    const int32_t* end_positions = nullptr;   // (batch) question answering
    // Classification labels: (batch) class ids of a sequence head, (batch, seq_len) of a token head
    // (kLossIgnoreIndex = -100, kernels/class_loss.h, on tokens without one); targets (batch): a regression's.
    const int32_t* labels = nullptr;
    const float* targets = nullptr;
    const int32_t* cu_seqlens = nullptr;      // (batch + 1) packed: window offsets, cu_seqlens[0] = 0
    int batch = 0, seq_len = 0;
    // Index of row 0 in the global batch this batch is a share of (0 in a single process). Dropout
    // masks are drawn per global row, so N ranks give the masks of one process with the whole batch.
    int64_t row_offset = 0;
  };

  // Train mode (dropout on, masks drawn from dropout_seed): forward, loss, backward. Gradients are
  // ADDED to grads() (call zero_grads() between optimizer steps); the backward seed is loss_scale.
  // Returns the unscaled loss.
  float forward_backward(const Batch& batch, uint64_t dropout_seed, float loss_scale = 1.f);
  // Eval mode (no dropout): writes start_logits and end_logits, each (batch, seq_len). Only the real
  // tokens are computed, group by group (group_rows()): a padded batch is packed first (a window's
  // length is one past its last unmasked token, all of it when no token is), and every position past
  // a window's length gets kPadLogit. The logits of real positions are those of a padded forward pass
  // up to float rounding (the products see other row counts): padding never changes a real token's value.
  void forward(const Batch& batch, float* start_logits, float* end_logits);
  // The logit of a position past a window's length: below every real logit, so an answer search
  // never ranks it above a real position (and never picks it: its offsets are null).
  static constexpr float kPadLogit = -3.3895313892515355e38f;  // the lowest bf16 value (0xff7f0000)
  // Eval mode of a classification head: writes logits (batch, num_labels) of a sequence head, read
  // at each window's first token, or (batch, seq_len, num_labels) of a token head, kPadLogit past a
  // window's length. Packs a padded batch as forward does.
  void forward_classes(const Batch& batch, float* logits);

  void zero_grads();
  // Re-derives the bf16 weight copies from the f32 master weights (after weights are loaded or
  // replaced; AdamW writes them in its own pass); does nothing in f32 mode.
  // The copies: where bf16 products are native, each product weight in oneDNN's own layouts
  // (kernels/gemm.h block_weight: one for the forward products, and once reserved for training one for
  // backward-data; a layer's q, k and v as one [3 hidden, hidden] weight, as their product reads them);
  // elsewhere (bf16 emulated in f32) a row-major bf16 copy of each matrix-product weight.
  void refresh_bf16_weights();
  // The row-major bf16 copy of the parameter tensor at `offset` (a ParamEntry offset), or null when it
  // has none (f32 mode, a model that keeps the copies in oneDNN's layout, or not a matrix-product weight).
  uint16_t* bf16_copy(size_t offset);
  // Re-derives the copies in oneDNN's layouts from the f32 masters: all of them, or those of the weights
  // whose values end at param_end (AdamW refreshes each as soon as its update is done, while its master is
  // still in cache: a layer's q, k, v copy after v's update).
  void refresh_blocked_copies();
  void refresh_blocked_copies_ending_at(size_t param_end);

  // Called during backward each time the gradient range [begin, end) (in floats, into grads()) is
  // final: the head first, then layers L-1 .. 0, then the embeddings.
  void set_grad_ready_callback(std::function<void(size_t begin, size_t end)> callback) {
    grad_ready_ = std::move(callback);
  }

 private:
  // The model's storage without its values: the parameters zero and the bf16 copies unwritten, for the
  // loaders (from_pretrained, from_int8), which write every parameter and then refresh_bf16_weights.
  struct Unfilled {};
  QaModel(ModelConfig config, bool bf16, Unfilled);
  struct Acts;  // pointers into the activation arena for one (batch, seq_len)
  // The arena's size in floats for batches of (batch, seq_len): all of them for a training step; one
  // group for a forward pass (at most group_rows tokens, or one window where that is longer).
  static size_t arena_floats(const ModelConfig& config, bool bf16, int batch, int seq_len, int threads,
                             bool training, int64_t group_rows);
  // The arena laid out for `rows` token rows of `batch` windows of at most seq_len tokens.
  const Acts& layout(int64_t rows, int batch, int seq_len, bool training);
  void check_batch(const Batch& b) const;
  // b's real tokens packed into the arena of `a` (a forward-only layout of their count); returns the packed view.
  Batch pack(const Batch& b, const Acts& a) const;
  // Packs b (when padded) into a forward-only layout and runs forward_pass (b already checked;
  // lengths: its windows' computed tokens, forward_groups').
  void forward_packed(const Batch& b, const int32_t* lengths);
  // Runs forward_packed over b's windows group by group (group_rows()); after each group, done(first,
  // count) reads the logits of windows [first, first + count) from the arena (packed_cu: their rows).
  void forward_groups(const Batch& b, const std::function<void(int first, int count)>& done);
  void forward_pass(const Batch& b, const Acts& a, bool train, uint64_t seed);
  void backward_pass(const Batch& b, const Acts& a, uint64_t seed);
  // The head on the last hidden states x (model/heads.cc): logits into a.logits; backward from
  // a.dlogits (the loss's gradient) writes the gradient of x into a.dres and adds the head's
  // parameter gradients. head_loss computes the loss of the batch's labels and a.dlogits.
  void head_forward(const Batch& b, const Acts& a, const float* x, bool train, uint64_t seed);
  void head_backward(const Batch& b, const Acts& a, uint64_t seed);
  float head_loss(const Batch& b, const Acts& a, float loss_scale) const;
  GemmIn gemm_weight(size_t offset) const;  // f32 master or bf16 copy (and its blocked copies) of a Linear weight
  // y = x W^T + b for an encoder linear layer: the int8 product when the model has one for it, else
  // linear_fwd on xin (x itself, or its bf16 copy). model/int8_model.cc.
  void linear(float* y, const float* x, GemmIn xin, const LinearOffsets& l, int64_t rows, int64_t in, int64_t out);

  ModelConfig config_;
  ParamTable table_;
  bool bf16_ = false;
  AlignedVector<float> params_, grads_;
  AlignedVector<uint16_t> bf16_weights_;            // row-major bf16 copies of the gemm weights (bf16 emulated)
  std::unordered_map<size_t, size_t> bf16_offset_;  // param offset -> offset in bf16_weights_
  // The bf16 copies in oneDNN's layouts, for the forward products and for backward-data (indexed by
  // WeightUse): empty when not kept. Each copy starts on a 64-byte boundary of the block.
  struct BlockedCopies {
    struct Copy {
      size_t at;     // byte offset from base()
      int64_t n, k;  // the weight's [out, in]
    };
    AlignedVector<uint64_t> words;              // the block
    std::unordered_map<size_t, Copy> by_param;  // param offset -> its copy
    uint8_t* base() const { return reinterpret_cast<uint8_t*>(const_cast<uint64_t*>(words.data())); }
  };
  BlockedCopies blocked_[2];
  void refresh_blocked_copy(size_t offset, const BlockedCopies::Copy& c);
  // The copies' storage for `use` (where bf16 products are native), unwritten: refresh_blocked_copies fills it.
  // True when it made them now (false: made before, or none here).
  bool make_blocked_copies(WeightUse use);
  AlignedVector<float> acts_;
  std::shared_ptr<Acts> view_;  // the arena's layout for the current (batch, seq_len)
  int max_threads_ = 1;
  int64_t group_rows_ = 0;           // 0: default_group_rows(max_threads_)
  std::vector<int32_t> lengths_;     // forward_groups: the computed tokens of each window of the batch
  std::function<void(size_t, size_t)> grad_ready_;
  std::shared_ptr<const Int8Weights> int8_;  // set by from_int8 only
  LinearInputObserver observer_;
};

}  // namespace cpuft
