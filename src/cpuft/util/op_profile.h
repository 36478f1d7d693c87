// Where a training step spends its time, by kind of operation (`cpuft bench --profile`).
//
// An OpScope around a piece of work adds its wall time to that kind's total while profiling is on.
// Only the outermost scope of the calling thread counts, and only outside OpenMP parallel regions,
// so a matrix product inside the attention block is counted once, as attention. Off (the default),
// a scope costs one load of a flag.
#pragma once

#include <cstdint>

namespace cpuft {

enum class Op : int {
  kEmbedding,     // token/position/type lookup and its gradient scatter
  kMatmul,        // the model's linear layers (forward, backward data and weights, bias gradient)
  kAttention,     // scores, masked softmax, attention dropout, probabilities x values, and their backward
  kLayernorm,     // residual add + LayerNorm, forward and backward
  kGelu,          // GELU forward and backward
  kDropout,       // hidden-state dropout, forward and backward
  kBf16Round,     // rounding activations and gradients to bf16 for the next product (--bf16)
  kLoss,          // QA cross-entropy and its gradient
  kGradNorm,      // global gradient norm and clipping
  kOptimizer,     // AdamW (with the row-major bf16 weight copies it writes in its pass)
  kWeightCopies,  // the bf16 weights' copies in oneDNN's blocked layout, remade after AdamW's update
  kCount
};

const char* op_name(Op op);

void op_profile_enable(bool on);
bool op_profile_enabled();
void op_profile_reset();

struct OpTotals {
  double seconds[static_cast<int>(Op::kCount)] = {};
  int64_t calls[static_cast<int>(Op::kCount)] = {};
};
OpTotals op_profile_totals();

class OpScope {
 public:
  explicit OpScope(Op op);
  ~OpScope();
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

 private:
  Op op_;
  bool entered_ = false;   // profiling was on when the scope opened
  int64_t start_ns_ = -1;  // -1: an inner or parallel-region scope, which does not count
};

}  // namespace cpuft
