// Losses of the classification heads: cross-entropy with an ignore index, and MSE (class_loss.h).
#include "cpuft/kernels/class_loss.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cpuft/util/error.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {

ClassLoss class_cross_entropy(float* dlogits, const float* logits, const int32_t* labels, int64_t rows, int64_t classes,
                              float grad_scale) {
  OpScope scope(Op::kLoss);
  double total = 0;
  int64_t counted = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* z = logits + r * classes;
    float* dz = dlogits ? dlogits + r * classes : nullptr;
    const int32_t y = labels[r];
    if (y == kLossIgnoreIndex) {
      if (dz) std::fill(dz, dz + classes, 0.f);
      continue;
    }
    if (y < 0 || y >= classes) fail_internal("class_cross_entropy: label ", y, " of row ", r, ", expected 0 .. ", classes - 1);
    float mx = -INFINITY;
    for (int64_t j = 0; j < classes; ++j) mx = std::fmax(mx, z[j]);
    float sum = 0.f;
    for (int64_t j = 0; j < classes; ++j) sum += std::exp(z[j] - mx);
    const float lse = mx + std::log(sum);
    total += static_cast<double>(lse - z[y]);
    ++counted;
    if (dz) {
      for (int64_t j = 0; j < classes; ++j) dz[j] = std::exp(z[j] - lse);
      dz[y] -= 1.f;
    }
  }
  const float scale = counted ? grad_scale / static_cast<float>(counted) : 0.f;
  if (dlogits)
    for (int64_t i = 0; i < rows * classes; ++i) dlogits[i] *= scale;
  const float loss = counted ? static_cast<float>(total) / static_cast<float>(counted) : std::numeric_limits<float>::quiet_NaN();
  return {loss, counted};
}

float mse_loss(float* dlogits, const float* logits, const float* targets, int64_t rows, float grad_scale) {
  OpScope scope(Op::kLoss);
  double total = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float d = logits[r] - targets[r];
    total += static_cast<double>(d) * d;
    if (dlogits) dlogits[r] = grad_scale * 2.f * d / static_cast<float>(rows);
  }
  return rows ? static_cast<float>(total / static_cast<double>(rows)) : std::numeric_limits<float>::quiet_NaN();
}

}  // namespace cpuft
