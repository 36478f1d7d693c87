// What the Trainer writes into output_dir and checkpoint-N/ (docs/parity.md, Files), byte for byte
// as transformers writes it: log_history entries, train metrics and trainer_state.json (indent 2,
// sorted keys, trailing newline). The *_results.json files are eval/results_files.h's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cpuft/eval/results_files.h"

namespace cpuft {

// One training log entry: {loss, grad_norm, learning_rate, epoch, step}. loss_mean is the mean per-step
// loss since the previous log (transformers 5 logs it unrounded; 4.x rounded it to 4 digits).
nlohmann::json train_log_entry(double loss_mean, double grad_norm, double learning_rate, double epoch,
                               int64_t step);

// One evaluation during training as run_qa's QuestionAnsweringTrainer logs it: the metrics of
// infer/evaluator.h (eval_exact_match, eval_f1, ... and eval_runtime, eval_samples_per_second,
// eval_steps_per_second) without eval_samples (run_qa adds that to eval_results.json only), then epoch
// and step. tests/fixtures/train/trainer_eval_run.json holds the Trainer's entries.
nlohmann::json eval_log_entry(const nlohmann::json& metrics, double epoch, int64_t step);

// The metrics Trainer.train() returns and logs: speed_metrics("train") + total_flos + train_loss
// (mean loss over all steps) + epoch. The final log_history entry is this plus "step".
nlohmann::json train_metrics(const SpeedInputs& in, double total_flos, double train_loss, double epoch);

// trainer_state.json. Defaults are those of a fresh TrainerState with TrainingArguments defaults. The
// keys are those transformers 5.x writes; best_metric, best_global_step and best_model_checkpoint are
// null until an evaluation sets them (train/best_model.h).
struct TrainerState {
  double epoch = 0;
  int64_t global_step = 0;
  int64_t max_steps = 0;
  int64_t num_train_epochs = 0;
  int64_t logging_steps = 500, eval_steps = 500, save_steps = 500;
  int64_t train_batch_size = 8;  // per device
  double total_flos = 0;
  int64_t num_input_tokens_seen = 0;
  bool is_world_process_zero = true, is_local_process_zero = true;
  // TrainerControl flags as saved: a mid-training checkpoint has should_save true; the final
  // trainer_state.json has should_training_stop true and should_save false.
  bool should_save = true, should_training_stop = false;
  nlohmann::json log_history = nlohmann::json::array();
  std::optional<double> best_metric;
  std::optional<int64_t> best_global_step;
  std::optional<std::string> best_model_checkpoint;  // a path as output_dir/checkpoint-N

  std::string to_json() const;
  // Parses trainer_state.json text (for resume); errors name `path` and the key.
  static TrainerState from_json(const std::string& text, const std::string& path);
};

}  // namespace cpuft
