#include "cpuft/perf/step_flops.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "cpuft/kernels/gemm.h"
#include "cpuft/perf/data_parallel_timing.h"
#include "cpuft/tensor/bf16.h"
#include "cpuft/tensor/dtype.h"
#include "cpuft/util/aligned_vector.h"
#include "cpuft/util/clock.h"

namespace cpuft {

double step_flops(const ModelConfig& c, int batch, int seq, bool train) {
  const double tokens = static_cast<double>(batch) * seq;
  const double h = static_cast<double>(c.hidden), in = static_cast<double>(c.intermediate);
  const double weights = static_cast<double>(c.layers) * (4 * h * h + 2 * h * in) + 2 * h;
  const double attention = static_cast<double>(c.layers) * 4.0 * seq * h;  // QK^T and PV per token
  return (train ? 3.0 : 1.0) * tokens * (2 * weights + attention);
}

void fill_peak_operand(float* x, int64_t n, bool bf16, uint32_t seed) {
  uint32_t state = seed;
  auto next = [&state] {  // a linear congruential generator's top 24 bits, as a float in [-1, 1)
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 8388608.0f - 1.0f;
  };
  uint16_t* words = reinterpret_cast<uint16_t*>(x);
  for (int64_t i = 0; i < n; ++i) {
    if (bf16)
      words[i] = f32_to_bf16(next());
    else
      x[i] = next();
  }
}

double gemm_peak_gflops(bool bf16) {
  const int64_t n = 2048;
  const DType dt = bf16 ? DType::kBf16 : DType::kF32;
  AlignedVector<float> x(n * n), w(n * n), y(n * n);  // whole cache lines, as the model's buffers
  fill_peak_operand(x.data(), n * n, bf16, 1);
  fill_peak_operand(w.data(), n * n, bf16, 2);
  // The weight as the model's products read it: in oneDNN's blocked layout where bf16 products are native
  // (a bf16 model keeps its weights so), row-major otherwise.
  const size_t blocked_bytes = bf16 ? blocked_weight_bytes(n, n, WeightUse::kForward) : 0;
  AlignedVector<uint16_t> blocked(blocked_bytes / 2);
  if (blocked_bytes) block_weight(blocked.data(), nullptr, w.data(), dt, n, n);
  const double seconds = median_run_seconds([&] {
    linear_forward(n, n, n, x.data(), w.data(), dt, nullptr, y.data(), DType::kF32,
                   blocked_bytes ? blocked.data() : nullptr);
  });
  return 2.0 * n * n * n / seconds / 1e9;
}

PeakReading peak_for_step(double achieved, const std::function<double()>& measure, int tries) {
  PeakReading r;
  do {
    r.gflops = std::max(r.gflops, measure());
    ++r.readings;
  } while (r.gflops < achieved && r.readings < tries);
  r.below_step = r.gflops < achieved;
  return r;
}

double median_run_seconds(const std::function<void()>& run, const RateTiming& timing) {
  const double warm = now_s();
  do run();
  while (now_s() - warm < timing.warmup_s);
  std::vector<double> runs;
  const double start = now_s();
  for (;;) {  // at least one timed run, whatever the bounds say
    const double t0 = now_s();
    run();
    const double t1 = now_s();
    runs.push_back(t1 - t0);
    const int timed = static_cast<int>(runs.size());
    if (timed >= timing.max_runs || (timed >= timing.min_runs && t1 - start >= timing.timed_s)) break;
  }
  return median(std::move(runs));
}

}  // namespace cpuft
