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
    case Op::embedding: return "embedding";
    case Op::matmul: return "matmul";
    case Op::attention: return "attention";
    case Op::layernorm: return "layernorm";
    case Op::gelu: return "gelu";
    case Op::dropout: return "dropout";
    case Op::bf16_round: return "bf16_round";
    case Op::loss: return "loss";
    case Op::grad_norm: return "grad_norm";
    case Op::optimizer: return "optimizer";
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
