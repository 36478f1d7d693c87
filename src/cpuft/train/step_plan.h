// Step arithmetic of the Trainer (docs/parity.md, Training): batches per epoch, optimizer steps
// per epoch and in total, warmup, logging and saving intervals, and the fractional epoch it logs.
#pragma once

#include <cstdint>

#include "cpuft/flags/train_args.h"

namespace cpuft {

struct StepPlan {
  int64_t batches_per_epoch = 0;  // micro-batches one rank sees per epoch (len(train_dataloader))
  int64_t steps_per_epoch = 0;    // optimizer updates per epoch: ceil(batches_per_epoch / grad_accum)
  int64_t max_steps = 0;          // total optimizer updates T
  int64_t num_epochs = 0;         // epochs the loop enters (the last may stop early)
  int64_t warmup_steps = 0;       // W for the schedule
  int64_t logging_steps = 0;      // absolute intervals (ratios resolved against max_steps)
  int64_t save_steps = 0;
  // --eval_steps, else --logging_steps when evaluating by steps, else TrainerState's default 500.
  int64_t eval_steps = 0;
  int64_t total_train_batch_size = 0;  // per-device batch x grad_accum x world size
  double num_train_samples = 0;        // the sample count train_samples_per_second divides
};

// Global batches of per_device_batch x world_size features in an epoch: ceil(num_features /
// (per_device_batch x world_size)), written as the two ceilings of Accelerate's count. Nothing is
// repeated to fill the last one: it is short, split across the ranks as evenly as it goes, a rank
// possibly getting none (data/sampler.h).
int64_t batches_per_epoch(int64_t num_features, int64_t per_device_batch, int64_t world_size);

// warmup_steps if >= 1; ceil(T * warmup_steps) if it is a ratio in (0, 1); else ceil(T * warmup_ratio).
int64_t resolve_warmup_steps(const TrainArgs& args, int64_t max_steps);

// An interval given as steps (>= 1) or as a ratio of max_steps (in (0, 1), rounded up).
int64_t resolve_interval(double steps_or_ratio, int64_t max_steps);

// Throws cpuft::Error when there is nothing to train on (num_features == 0).
StepPlan plan_steps(const TrainArgs& args, int64_t num_features, int64_t world_size);

// The epoch the Trainer logs: completed epochs + batches done in this epoch / batches per epoch.
double epoch_progress(int64_t completed_epochs, int64_t batches_done, int64_t batches_per_epoch);

}  // namespace cpuft
