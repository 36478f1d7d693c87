// The f32 scalars of one AdamW step, rounded from torch's double arithmetic exactly where torch
// rounds them (shared by the scalar and vector kernels).
#pragma once

#include <cmath>
#include <cstdint>

#include "cpuft/kernels/adamw.h"

namespace cpuft {

struct AdamWScalars {
  float decay;       // 1 - lr*wd (1 when wd == 0: torch skips the multiply)
  float one_m_b1;    // lerp weight 1 - beta1
  float b2;          // beta2
  float one_m_b2;    // addcmul value 1 - beta2
  float bc2_sqrt;    // sqrt(1 - beta2^t)
  float eps;
  float neg_step;    // -lr / (1 - beta1^t)
};

static inline AdamWScalars adamw_scalars(const AdamWParams& p, int64_t step) {
  const double t = static_cast<double>(step);
  const double bc1 = 1.0 - std::pow(p.beta1, t);
  const double bc2 = 1.0 - std::pow(p.beta2, t);
  AdamWScalars s;
  s.decay = static_cast<float>(1.0 - p.lr * p.weight_decay);
  s.one_m_b1 = static_cast<float>(1.0 - p.beta1);
  s.b2 = static_cast<float>(p.beta2);
  s.one_m_b2 = static_cast<float>(1.0 - p.beta2);
  s.bc2_sqrt = static_cast<float>(std::sqrt(bc2));
  s.eps = static_cast<float>(p.eps);
  s.neg_step = static_cast<float>(-(p.lr / bc1));
  return s;
}

}  // namespace cpuft
