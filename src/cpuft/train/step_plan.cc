#include "cpuft/train/step_plan.h"

#include <algorithm>
#include <cmath>

#include "cpuft/util/error.h"

namespace cpuft {

namespace {
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

int64_t batches_per_epoch(int64_t num_features, int64_t per_device_batch, int64_t world_size) {
  return ceil_div(ceil_div(num_features, per_device_batch), world_size);
}

int64_t resolve_warmup_steps(const TrainArgs& args, int64_t max_steps) {
  if (args.warmup_steps >= 1) return static_cast<int64_t>(args.warmup_steps);
  const double ratio = args.warmup_steps > 0 ? args.warmup_steps : args.warmup_ratio;
  return static_cast<int64_t>(std::ceil(static_cast<double>(max_steps) * ratio));
}

int64_t resolve_interval(double steps_or_ratio, int64_t max_steps) {
  if (steps_or_ratio >= 1) return static_cast<int64_t>(steps_or_ratio);
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(static_cast<double>(max_steps) * steps_or_ratio)));
}

StepPlan plan_steps(const TrainArgs& args, int64_t num_features, int64_t world_size) {
  if (num_features <= 0) fail("training set: 0 features, expected at least one (check --train_file)");
  StepPlan p;
  p.batches_per_epoch = batches_per_epoch(num_features, args.per_device_train_batch_size, world_size);
  p.steps_per_epoch = std::max<int64_t>(1, ceil_div(p.batches_per_epoch, args.gradient_accumulation_steps));
  p.total_train_batch_size = args.per_device_train_batch_size * args.gradient_accumulation_steps * world_size;
  if (args.max_steps > 0) {
    p.max_steps = args.max_steps;
    p.num_epochs = ceil_div(args.max_steps, p.steps_per_epoch);
    p.num_train_samples = static_cast<double>(args.max_steps * p.total_train_batch_size);
  } else {
    p.max_steps = static_cast<int64_t>(std::ceil(args.num_train_epochs * static_cast<double>(p.steps_per_epoch)));
    p.num_epochs = static_cast<int64_t>(std::ceil(args.num_train_epochs));
    p.num_train_samples = static_cast<double>(num_features) * args.num_train_epochs;
  }
  p.warmup_steps = resolve_warmup_steps(args, p.max_steps);
  p.logging_steps = resolve_interval(args.logging_steps, p.max_steps);
  p.save_steps = resolve_interval(args.save_steps, p.max_steps);
  if (args.eval_steps > 0) p.eval_steps = resolve_interval(args.eval_steps, p.max_steps);
  else p.eval_steps = args.eval_strategy == EvalStrategy::kSteps ? p.logging_steps : 500;
  return p;
}

double epoch_progress(int64_t completed_epochs, int64_t batches_done, int64_t batches_per_epoch) {
  return static_cast<double>(completed_epochs) +
         static_cast<double>(batches_done) / static_cast<double>(batches_per_epoch);
}

}  // namespace cpuft
