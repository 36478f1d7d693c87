// AdamW and the gradient-norm helpers: dispatch through the ISA table.
#include "cpuft/kernels/adamw.h"

#include <cstddef>
#include <vector>

#include "cpuft/kernels/kernel_table.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {

void adamw_step(float* w, float* m, float* v, uint16_t* w_bf16, float* g, int64_t n, const AdamWParams& p,
                int64_t step) {
  OpScope scope(Op::kOptimizer);
  kernels().adamw_step(w, m, v, w_bf16, g, n, p, step);
}

double sum_squares(const float* x, int64_t n) {
  if (n <= 0) return 0.0;
  OpScope scope(Op::kGradNorm);
  std::vector<double> blocks(static_cast<size_t>((n + kSumSquaresBlock - 1) / kSumSquaresBlock));
  kernels().block_sum_squares(blocks.data(), x, n);
  double total = 0.0;
  for (double b : blocks) total += b;
  return total;
}

void scale_inplace(float* x, int64_t n, float s) {
  OpScope scope(Op::kGradNorm);
  kernels().scale_inplace(x, n, s);
}

}  // namespace cpuft
