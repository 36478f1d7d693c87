// Whether a checkpoint can continue this run. A checkpoint records the flags that shape the training
// trajectory (cpuft_state.json "flags"); resuming compares them with this run's:
//   - the global batch (--per_device_train_batch_size x processes), the windows (--max_seq_length,
//     --doc_stride, --pad_to_max_length, --max_train_samples) and the data order (--data_seed) fix
//     what "batch N of epoch E" means: when they differ the checkpoint's position in the epoch would
//     silently land elsewhere, so resuming is refused;
//   - any other difference (learning rate, schedule, steps, ...) is allowed and named in a warning.
// The number of processes alone may change: the same global batch gives the same data order.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "cpuft/flags/train_args.h"
#include "cpuft/train/checkpoint.h"

namespace cpuft {

// The flags that change the training trajectory, by flag name, as --help shows their values.
std::map<std::string, std::string> training_flags(const TrainArgs& args);

// Hash (16 hex digits) of training_flags(args).
std::string training_args_hash(const TrainArgs& args);

struct ResumeCheck {
  std::string refusal;  // why the checkpoint cannot continue this run; empty when it can
  std::string changes;  // "--learning_rate 5e-05 -> 0.0001, ..."; empty when nothing changed
};

ResumeCheck check_resume(const CheckpointState& state, const TrainArgs& args, int64_t world_size);

}  // namespace cpuft
