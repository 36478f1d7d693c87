// Learning-rate schedules of transformers' get_scheduler (docs/parity.md, Training), in double.
// k is the scheduler step counter: optimizer update n (1-based) uses lr(n - 1), and the rate logged at
// global step s is lr(s).
#pragma once

#include <cstdint>

#include "cpuft/flags/train_args.h"

namespace cpuft {

class LrSchedule {
 public:
  // total_steps T >= 1, 0 <= warmup_steps W.
  LrSchedule(LrSchedulerType type, double base_lr, int64_t warmup_steps, int64_t total_steps);

  // The multiplier f(k) of LambdaLR: linear    k < W ? k / max(1, W) : max(0, (T - k) / max(1, T - W))
  //                                  constant  1
  //                                  constant_with_warmup  k < W ? k / max(1, W) : 1
  //                                  cosine    k < W ? k / max(1, W)
  //                                            : max(0, 0.5 (1 + cos(pi * 0.5 * 2 * (k - W) / max(1, T - W))))
  double factor(int64_t k) const;
  // base_lr * factor(k), multiplied in that order as LambdaLR does.
  double lr(int64_t k) const { return base_lr_ * factor(k); }

  LrSchedulerType type() const { return type_; }
  int64_t warmup_steps() const { return warmup_; }
  int64_t total_steps() const { return total_; }

 private:
  LrSchedulerType type_;
  double base_lr_;
  int64_t warmup_, total_;
};

}  // namespace cpuft
