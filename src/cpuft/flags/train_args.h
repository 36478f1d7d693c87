// Every option of `cpuft train | evaluate | predict`, as a plain struct. Names and defaults follow
// run_qa.py's DataTrainingArguments / ModelArguments and transformers' TrainingArguments
// (docs/parity.md, Training), so a reference command line ports by changing the program name.
// The flag table that fills it lives in flags/train_flags.cc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cpuft/io/hf_config.h"
#include "cpuft/parallel/wire_type.h"

namespace cpuft {

enum class Command { kTrain, kEvaluate, kPredict };
enum class LrSchedulerType { kLinear, kConstant, kConstantWithWarmup, kCosine };
enum class SaveStrategy { kSteps, kEpoch, kNo };
enum class EvalStrategy { kNo, kSteps, kEpoch };  // TrainingArguments' IntervalStrategy

struct TrainArgs {
  Command command = Command::kTrain;

  // Model
  std::string model_name_or_path;
  std::string tokenizer_name;  // empty: the tokenizer files of model_name_or_path

  // Data
  std::string train_file, validation_file, test_file;
  int64_t max_seq_length = 384;
  int64_t doc_stride = 128;  // overlap between consecutive windows, in tokens
  bool pad_to_max_length = true;
  std::optional<int64_t> max_train_samples, max_eval_samples, max_predict_samples;
  bool version_2_with_negative = false;
  // The job (docs/tasks.md): question answering (run_qa), text classification (run_glue with local
  // files) or token classification (run_ner), and the flags of the latter two.
  TaskHead task = TaskHead::kQuestionAnswering;
  bool label_all_tokens = false;             // run_ner: label every sub-token of a word
  bool return_entity_level_metrics = false;  // run_ner: per entity type metrics
  std::string text_column_name, label_column_name;  // run_ner's columns ("" = its rules)

  // Training
  bool do_train = false, do_eval = false, do_predict = false;
  int64_t per_device_train_batch_size = 8;
  int64_t gradient_accumulation_steps = 1;
  bool group_by_length = false;  // length-grouped batches (data/sampler.h)
  double learning_rate = 5e-5;
  double weight_decay = 0.0;
  double adam_beta1 = 0.9, adam_beta2 = 0.999, adam_epsilon = 1e-8;
  double max_grad_norm = 1.0;  // 0 disables clipping
  double num_train_epochs = 3.0;
  int64_t max_steps = -1;  // > 0 overrides num_train_epochs
  double warmup_ratio = 0.0;
  double warmup_steps = 0;  // >= 1: a step count; in (0, 1): a ratio of the total (transformers v5)
  LrSchedulerType lr_scheduler_type = LrSchedulerType::kLinear;
  int64_t seed = 42;
  std::optional<int64_t> data_seed;  // none: seed
  bool bf16 = false;
  int64_t threads = 0;  // 0: one per core of this process's share of the machine

  // Evaluation
  int64_t per_device_eval_batch_size = 8;
  int64_t n_best_size = 20;
  int64_t max_answer_length = 30;
  double null_score_diff_threshold = 0.0;
  // Evaluation during training (implies do_eval, as TrainingArguments sets it)
  EvalStrategy eval_strategy = EvalStrategy::kNo;
  double eval_steps = 0;  // 0: --logging_steps; otherwise as logging_steps
  // The best model: tracked when metric_for_best_model is set (or "loss" with load_best_model_at_end)
  bool load_best_model_at_end = false;
  std::string metric_for_best_model;      // empty: not given
  std::optional<bool> greater_is_better;  // unset: false for a metric ending in "loss", else true

  // Output
  std::string output_dir;
  bool overwrite_output_dir = false;
  double logging_steps = 500;  // >= 1: steps; in (0, 1): a ratio of max_steps
  bool logging_first_step = false;
  double save_steps = 500;  // as logging_steps
  std::optional<int64_t> save_total_limit;
  SaveStrategy save_strategy = SaveStrategy::kSteps;
  std::string resume_from_checkpoint;  // empty: start afresh; "last": newest in output_dir; else a path
  // Reporting: the integrations of --report_to as given ("none", "all", "tensorboard", "wandb", ...)
  // and where TensorBoard event files go (empty: output_dir/runs/<date>_<host>, as the Trainer names it)
  std::vector<std::string> report_to = {"none"};
  std::string logging_dir;

  // Distributed
  double bucket_size_mb = 25.0;  // gradient bucket size for the overlapped allreduce (DDP default)
  WireType allreduce_dtype = WireType::kF32;
  double collective_timeout = 300;  // seconds a collective may wait with none completing; 0: no watchdog

  // Questions (cpuft predict); unset when not given (an empty --context is a context)
  std::optional<std::string> question, context;
  std::optional<std::string> input;  // JSON lines of questions; "-" reads stdin

  int64_t effective_data_seed() const { return data_seed ? *data_seed : seed; }
  // --report_to names tensorboard, or all (every integration cpuft has: TensorBoard).
  bool reports_to_tensorboard() const;
};

const char* command_name(Command c);
const char* lr_scheduler_name(LrSchedulerType t);
const char* save_strategy_name(SaveStrategy s);
const char* eval_strategy_name(EvalStrategy s);

}  // namespace cpuft
