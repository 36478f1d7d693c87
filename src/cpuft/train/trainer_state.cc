#include "cpuft/train/trainer_state.h"

#include "cpuft/util/atomic_file.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/py_json.h"
#include "cpuft/util/read_file.h"

namespace cpuft {

using nlohmann::json;

json train_log_entry(double loss_mean, double grad_norm, double learning_rate, double epoch, int64_t step) {
  return json{{"loss", loss_mean},
              {"grad_norm", grad_norm},
              {"learning_rate", learning_rate},
              {"epoch", epoch},
              {"step", step}};
}

json eval_log_entry(const json& metrics, double epoch, int64_t step) {
  json entry = metrics;
  entry.erase("eval_samples");
  entry["epoch"] = epoch;
  entry["step"] = step;
  return entry;
}

json train_metrics(const SpeedInputs& in, double total_flos, double train_loss, double epoch) {
  json m = speed_metrics("train", in);
  m["total_flos"] = total_flos;
  m["train_loss"] = train_loss;
  m["epoch"] = epoch;
  return m;
}

std::string TrainerState::to_json() const {
  json control_args = {{"should_epoch_stop", false},
                       {"should_evaluate", false},
                       {"should_log", false},
                       {"should_save", should_save},
                       {"should_training_stop", should_training_stop}};
  auto or_null = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  json j = {{"best_global_step", or_null(best_global_step)},
            {"best_metric", or_null(best_metric)},
            {"best_model_checkpoint", or_null(best_model_checkpoint)},
            {"epoch", epoch},
            {"eval_steps", eval_steps},
            {"global_step", global_step},
            {"is_hyper_param_search", false},
            {"is_local_process_zero", is_local_process_zero},
            {"is_world_process_zero", is_world_process_zero},
            {"log_history", log_history},
            {"logging_steps", logging_steps},
            {"max_steps", max_steps},
            {"num_input_tokens_seen", num_input_tokens_seen},
            {"num_train_epochs", num_train_epochs},
            {"save_steps", save_steps},
            {"stateful_callbacks",
             {{"TrainerControl", {{"args", control_args}, {"attributes", json::object()}}}}},
            {"total_flos", total_flos},
            {"train_batch_size", train_batch_size},
            {"trial_name", nullptr},
            {"trial_params", nullptr}};
  return py_json_dumps(j, 2) + "\n";
}

namespace {

const json& field(const json& j, const char* key, const std::string& path) {
  auto it = j.find(key);
  if (it == j.end()) fail(path, ": ", key, ": missing, expected a value");
  return *it;
}

int64_t int_field(const json& j, const char* key, const std::string& path) {
  const json& v = field(j, key, path);
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX))
    fail(path, ": ", key, ": found ", json_preview(v), ", expected an integer");
  return v.get<int64_t>();
}

double number_field(const json& j, const char* key, const std::string& path) {
  const json& v = field(j, key, path);
  if (!v.is_number()) fail(path, ": ", key, ": found ", json_preview(v), ", expected a number");
  return v.get<double>();
}

}  // namespace

TrainerState TrainerState::from_json(const std::string& text, const std::string& path) {
  json j = parse_json(text, path);
  if (!j.is_object()) fail(path, ": not a JSON object (expected trainer_state.json)");
  TrainerState s;
  s.epoch = number_field(j, "epoch", path);
  s.global_step = int_field(j, "global_step", path);
  s.max_steps = int_field(j, "max_steps", path);
  s.num_train_epochs = int_field(j, "num_train_epochs", path);
  s.logging_steps = int_field(j, "logging_steps", path);
  s.eval_steps = int_field(j, "eval_steps", path);
  s.save_steps = int_field(j, "save_steps", path);
  s.train_batch_size = int_field(j, "train_batch_size", path);
  s.total_flos = number_field(j, "total_flos", path);
  if (j.contains("num_input_tokens_seen")) s.num_input_tokens_seen = int_field(j, "num_input_tokens_seen", path);
  const json& history = field(j, "log_history", path);
  if (!history.is_array()) fail(path, ": log_history: found ", history.type_name(), ", expected an array");
  for (size_t i = 0; i < history.size(); ++i)
    if (!history[i].is_object()) fail(path, ": log_history[", i, "]: found ", history[i].type_name(), ", expected an object");
  s.log_history = history;
  // Absent in files written before cpuft tracked a best model; null until an evaluation sets them.
  auto present = [&](const char* key) { return j.contains(key) && !j.at(key).is_null(); };
  if (present("best_metric")) s.best_metric = number_field(j, "best_metric", path);
  if (present("best_global_step")) s.best_global_step = int_field(j, "best_global_step", path);
  if (present("best_model_checkpoint")) {
    const json& v = j.at("best_model_checkpoint");
    if (!v.is_string()) fail(path, ": best_model_checkpoint: found ", json_preview(v), ", expected a path or null");
    s.best_model_checkpoint = v.get<std::string>();
  }
  return s;
}

}  // namespace cpuft
