#include "cpuft/util/op_profile.h"

#include <omp.h>

#include <atomic>

#include "cpuft/util/clock.h"

namespace cpuft {
namespace {

constexpr int kOps = static_cast<int>(Op::kCount);
std::atomic<bool> g_enabled{false};
std::atomic<int64_t> g_ns[kOps];
std::atomic<int64_t> g_calls[kOps];
thread_local int t_depth = 0;

}  // namespace

const char* op_name(Op op) {
  switch (op) {
    case Op::kEmbedding: return "embedding";
    case Op::kMatmul: return "matmul";
    case Op::kAttention: return "attention";
    case Op::kLayernorm: return "layernorm";
    case Op::kGelu: return "gelu";
    case Op::kDropout: return "dropout";
    case Op::kBf16Round: return "bf16_round";
    case Op::kLoss: return "loss";
    case Op::kGradNorm: return "grad_norm";
    case Op::kOptimizer: return "optimizer";
    case Op::kWeightCopies: return "weight_copies";
    case Op::kCount: break;
  }
  return "?";
}

void op_profile_enable(bool on) { g_enabled.store(on, std::memory_order_relaxed); }
bool op_profile_enabled() { return g_enabled.load(std::memory_order_relaxed); }

void op_profile_reset() {
  for (int i = 0; i < kOps; ++i) {
    g_ns[i].store(0, std::memory_order_relaxed);
    g_calls[i].store(0, std::memory_order_relaxed);
  }
}

OpTotals op_profile_totals() {
  OpTotals t;
  for (int i = 0; i < kOps; ++i) {
    t.seconds[i] = static_cast<double>(g_ns[i].load(std::memory_order_relaxed)) * 1e-9;
    t.calls[i] = g_calls[i].load(std::memory_order_relaxed);
  }
  return t;
}

OpScope::OpScope(Op op) : op_(op) {
  if (!g_enabled.load(std::memory_order_relaxed)) return;
  entered_ = true;
  if (t_depth++ == 0 && !omp_in_parallel()) start_ns_ = now_ns();
}

OpScope::~OpScope() {
  if (!entered_) return;
  --t_depth;
  if (start_ns_ < 0) return;
  const int i = static_cast<int>(op_);
  g_ns[i].fetch_add(now_ns() - start_ns_, std::memory_order_relaxed);
  g_calls[i].fetch_add(1, std::memory_order_relaxed);
}

}  // namespace cpuft
