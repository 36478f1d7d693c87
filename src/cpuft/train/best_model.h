// The best model (docs/parity.md, Training): the evaluation metric that picks it and its direction, as
// TrainingArguments resolves --metric_for_best_model and --greater_is_better, and how each evaluation
// and each save move trainer_state.json's best_metric, best_global_step and best_model_checkpoint, as
// the Trainer's _determine_best_metric and _save_checkpoint do (tests/fixtures/train/trainer_eval_run.json).
// Rotation keeps the best checkpoint (train/checkpoint.h, rotate_checkpoints).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cpuft/flags/train_args.h"
#include "cpuft/train/trainer_state.h"

namespace cpuft {

struct BestMetric {
  std::string key;      // the evaluation's metric, "eval_f1"; empty: no best model is tracked
  bool greater = true;  // a higher value is better
};

// --metric_for_best_model with "eval_" put in front when it is not there ("loss" when only
// --load_best_model_at_end is given, as TrainingArguments defaults it); --greater_is_better, by
// default false for a name ending in "loss" and true otherwise.
BestMetric best_metric_of(const TrainArgs& args);

// A one-line error naming --metric_for_best_model and the metrics there are, unless best.key is one
// of `available` (the keys an evaluation reports) or empty.
void check_best_metric(const BestMetric& best, const TrainArgs& args, const std::vector<std::string>& available);

// After an evaluation at `step` (`metrics` as logged): a value strictly better than best_metric (the
// first one always) becomes best_metric and, when checkpoints are saved (`saving`), best_global_step.
// Returns true for a new best.
bool record_evaluation(TrainerState& state, const BestMetric& best, const nlohmann::json& metrics, int64_t step,
                       bool saving);

// Before checkpoint-`step` is written: best_model_checkpoint becomes the checkpoint of best_global_step
// when that is this one or exists already (otherwise it keeps its value, as in the Trainer).
void point_to_best_checkpoint(TrainerState& state, const std::string& output_dir, int64_t step);

// On resume: a recorded best_model_checkpoint is derived again from best_global_step in this run's
// output_dir (a path read from a file is not trusted), and forgotten when that checkpoint is not there,
// as the Trainer forgets one that is not a directory. Returns a warning when it was forgotten, else "".
std::string rebase_best_checkpoint(TrainerState& state, const std::string& output_dir);

// output_dir/checkpoint-<step>, joined as os.path.join joins them.
std::string checkpoint_path(const std::string& output_dir, int64_t step);

}  // namespace cpuft
