#include "cpuft/train/best_model.h"

#include <filesystem>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_directory(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec);
}

}  // namespace

BestMetric best_metric_of(const TrainArgs& args) {
  std::string name = args.metric_for_best_model;
  if (name.empty() && args.load_best_model_at_end) name = "loss";
  BestMetric best;
  if (name.empty()) return best;
  best.key = name.compare(0, 5, "eval_") == 0 ? name : "eval_" + name;
  best.greater = args.greater_is_better ? *args.greater_is_better : !ends_with(name, "loss");
  return best;
}

void check_best_metric(const BestMetric& best, const TrainArgs& args, const std::vector<std::string>& available) {
  if (best.key.empty()) return;
  for (const std::string& key : available)
    if (key == best.key) return;
  std::string names;
  for (const std::string& key : available) names += " " + key.substr(5);
  fail("--metric_for_best_model: found '", text_preview(args.metric_for_best_model.empty() ? "loss" : args.metric_for_best_model),
       "'", args.metric_for_best_model.empty() ? " (the default with --load_best_model_at_end)" : "",
       ", expected a metric the evaluation reports, with or without eval_:", names);
}

bool record_evaluation(TrainerState& state, const BestMetric& best, const nlohmann::json& metrics, int64_t step,
                       bool saving) {
  if (best.key.empty()) return false;
  auto it = metrics.find(best.key);
  if (it == metrics.end() || !it->is_number())
    fail("--metric_for_best_model: the evaluation at step ", step, " reports no number for ", best.key);
  const double value = it->get<double>();
  const bool better = !state.best_metric || (best.greater ? value > *state.best_metric : value < *state.best_metric);
  if (!better) return false;
  state.best_metric = value;
  if (saving) state.best_global_step = step;
  return true;
}

std::string checkpoint_path(const std::string& output_dir, int64_t step) {
  const std::string name = "checkpoint-" + std::to_string(step);
  if (output_dir.empty() || output_dir.back() == '/') return output_dir + name;
  return output_dir + "/" + name;
}

void point_to_best_checkpoint(TrainerState& state, const std::string& output_dir, int64_t step) {
  if (!state.best_global_step) return;
  const std::string best = checkpoint_path(output_dir, *state.best_global_step);
  if (*state.best_global_step == step || is_directory(best)) state.best_model_checkpoint = best;
}

std::string rebase_best_checkpoint(TrainerState& state, const std::string& output_dir) {
  if (!state.best_model_checkpoint) return "";
  state.best_model_checkpoint.reset();
  if (!state.best_global_step) return "";
  const std::string best = checkpoint_path(output_dir, *state.best_global_step);
  if (is_directory(best)) {
    state.best_model_checkpoint = best;
    return "";
  }
  return str_cat("the best checkpoint so far (step ", *state.best_global_step, ") is not in ", output_dir,
                 "; there is no best model to load unless a later evaluation beats best_metric ",
                 state.best_metric ? *state.best_metric : 0.0);
}

}  // namespace cpuft
