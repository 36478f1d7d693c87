// Evaluation and prediction of the classification jobs (docs/tasks.md): forward passes over the
// features (split across ranks, packed, gathered in feature order on every rank), the loss as the
// Trainer's evaluation loop reports it, predictions (argmax, or the regression value), run_glue's /
// run_ner's metrics and prediction files.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cpuft/data/task_data.h"
#include "cpuft/model/qa_model.h"
#include "cpuft/parallel/communicator.h"
#include "cpuft/util/phase_times.h"

namespace cpuft {

struct TaskOutcome {
  nlohmann::json metrics;      // with the split prefix: eval_loss, eval_accuracy, ..., speed, eval_samples
  std::string predictions_file;  // kGluePredictResultsFile / kNerPredictionsFile
  std::string predictions_text;  // its text
};

// `with_metrics`: the data has labels (validation) and is scored; without, only predictions and speed.
TaskOutcome evaluate_task(QaModel& model, const TaskData& data, const TaskLabels& labels, bool entity_level_metrics,
                          int batch_size, int seq_len, Communicator& comm, const std::string& split, bool with_metrics,
                          PhaseTimes* phases = nullptr);

// The metric keys evaluate_task reports for `data` (for --metric_for_best_model checks).
std::vector<std::string> task_metric_keys(const TaskData& data, const TaskLabels& labels, bool entity_level_metrics,
                                          const std::string& split);

// Rank 0 writes {split}_results.json (merged into all_results.json) and, for "predict", the predictions
// file into out_dir, and logs the metrics.
void write_task_results(const std::string& out_dir, const std::string& split, const TaskOutcome& out,
                        const Communicator& comm);

}  // namespace cpuft
