// Whether a checkpoint can continue this run. A checkpoint records the flags that shape the training
// trajectory (cpuft_state.json "flags"); resuming compares them with this run's:
//   - the global batch (--per_device_train_batch_size x processes), the micro-batches per step
//     (--gradient_accumulation_steps), the windows (--max_seq_length, --doc_stride,
//     --pad_to_max_length, --max_train_samples) and the data order (--data_seed) fix what "batch N of
//     epoch E" and "step S" mean: when they differ the checkpoint's position in the epoch would
//     silently land elsewhere, so resuming is refused;
//   - any other difference (learning rate, schedule, steps, ...) is allowed and named in a warning.
// The number of processes alone may change: the same global batch gives the same data order.
// It also records what the run was made from (made_from), which must be what this run is made of,
// and counters (global_step, epoch, ...), which must be where this run's plan puts that step.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "cpuft/data/features.h"
#include "cpuft/flags/train_args.h"
#include "cpuft/io/hf_config.h"
#include "cpuft/text/tokenizer.h"
#include "cpuft/train/checkpoint.h"
#include "cpuft/train/step_plan.h"

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

// What a run is made from, as cpuft_state.json "made_from" records it:
//   model.<field>            the shape of the model (model_type, hidden_size, num_hidden_layers, ...)
//   tokenizer.files_xxh64    the XXH64 of the tokenizer's files, in order
//   data.train_features      the number of training windows
//   data.features_xxh64      the XXH64 of their token ids, masks and answer positions, in order
// made_from_model gives the model.* entries alone (known before the tokenizer and data are loaded).
std::map<std::string, std::string> made_from_model(const ModelConfig& config);
std::map<std::string, std::string> made_from(const ModelConfig& config, const Tokenizer& tokenizer,
                                             const std::vector<Feature>& train_features);

// Empty when every entry of `now` is recorded with the same value; else the refusal naming the first
// that is not: "made_from.model.hidden_size: found 32, expected 64 (WHAT_NOW)".
std::string check_made_from(const std::map<std::string, std::string>& recorded,
                            const std::map<std::string, std::string>& now, const std::string& what_now);

// The counters of a checkpoint against this run's plan: global_step within [0, max_steps]; epoch and
// batches_in_epoch where that many steps put them (plan.steps_per_epoch steps of
// --gradient_accumulation_steps micro-batches per epoch); adam_step and the scheduler's step equal to
// global_step; samples_seen = global_step x the total batch; last_logged_step within [0, global_step];
// the loss sums and FLOP count finite and >= 0. Empty when all fit, else the refusal naming the first
// field that does not, its value and what was expected.
std::string check_progress(const CheckpointState& state, const StepPlan& plan, int64_t gradient_accumulation_steps);

}  // namespace cpuft
