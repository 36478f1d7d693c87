#include "cpuft/perf/step_flops.h"

#include <algorithm>
#include <vector>

#include "cpuft/kernels/gemm.h"
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

double gemm_peak_gflops(bool bf16) {
  const int64_t n = 2048;
  const DType dt = bf16 ? DType::kBf16 : DType::kF32;
  // Zero operands: the time of a product does not depend on the values.
  AlignedVector<float> x(n * n), w(n * n), y(n * n);  // whole cache lines, as the model's buffers
  std::vector<double> runs;
  for (int r = 0; r < 5; ++r) {
    const double t0 = now_s();
    linear_forward(n, n, n, x.data(), w.data(), dt, nullptr, y.data());
    if (r > 0) runs.push_back(now_s() - t0);
  }
  std::sort(runs.begin(), runs.end());
  return 2.0 * n * n * n / runs[runs.size() / 2] / 1e9;
}

}  // namespace cpuft
