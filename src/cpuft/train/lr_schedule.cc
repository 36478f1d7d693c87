#include "cpuft/train/lr_schedule.h"

#include <algorithm>
#include <cmath>

#include "cpuft/util/error.h"

namespace cpuft {

LrSchedule::LrSchedule(LrSchedulerType type, double base_lr, int64_t warmup_steps, int64_t total_steps)
    : type_(type), base_lr_(base_lr), warmup_(warmup_steps), total_(total_steps) {
  if (total_steps < 1) fail("learning-rate schedule: total steps ", total_steps, ", expected >= 1");
  if (warmup_steps < 0) fail("learning-rate schedule: warmup steps ", warmup_steps, ", expected >= 0");
}

double LrSchedule::factor(int64_t k) const {
  // Same operations and order as transformers/optimization.py, so the doubles match bit for bit.
  if (type_ == LrSchedulerType::kConstant) return 1.0;
  if (k < warmup_) return static_cast<double>(k) / static_cast<double>(std::max<int64_t>(1, warmup_));
  const double span = static_cast<double>(std::max<int64_t>(1, total_ - warmup_));
  switch (type_) {
    case LrSchedulerType::kLinear: return std::max(0.0, static_cast<double>(total_ - k) / span);
    case LrSchedulerType::kConstantWithWarmup: return 1.0;
    case LrSchedulerType::kCosine: {
      const double progress = static_cast<double>(k - warmup_) / span;
      const double num_cycles = 0.5;
      return std::max(0.0, 0.5 * (1.0 + std::cos(M_PI * num_cycles * 2.0 * progress)));
    }
    case LrSchedulerType::kConstant: break;
  }
  return 1.0;
}

}  // namespace cpuft
