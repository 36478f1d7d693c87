#include "cpuft/eval/results_files.h"

#include <cmath>

#include "cpuft/util/atomic_file.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/py_json.h"
#include "cpuft/util/read_file.h"

namespace cpuft {

using nlohmann::json;

json speed_metrics(const std::string& split, const SpeedInputs& in) {
  json m = json::object();
  m[split + "_runtime"] = py_round(in.runtime_s, 4);
  if (in.runtime_s == 0) return m;
  m[split + "_samples_per_second"] = py_round(in.num_samples / in.runtime_s, 3);
  m[split + "_steps_per_second"] = py_round(in.num_steps / in.runtime_s, 3);
  return m;
}

json evaluation_speed_metrics(const std::string& split, double runtime_s, int64_t num_samples, int64_t global_batch) {
  SpeedInputs speed;
  speed.runtime_s = runtime_s;
  speed.num_samples = static_cast<double>(num_samples);
  speed.num_steps = std::ceil(speed.num_samples / static_cast<double>(global_batch));
  json m = speed_metrics(split, speed);
  m[split + "_samples"] = num_samples;
  return m;
}

namespace {

// output_dir/all_results.json as an object to merge into (empty when there is none).
json read_all_results(const std::string& output_dir) {
  const std::string all_path = output_dir + "/all_results.json";
  json all = json::object();
  if (non_regular_kind(all_path) == "missing") return all;
  try {
    all = read_json_file(all_path, kMaxSmallJsonBytes);
  } catch (const Error& e) {
    fail(e.what(), "; remove it or choose another --output_dir");
  }
  if (!all.is_object()) fail(all_path, ": not a JSON object; remove it or choose another --output_dir");
  return all;
}

}  // namespace

void check_results_file(const std::string& output_dir) { read_all_results(output_dir); }

void save_metrics(const std::string& output_dir, const std::string& split, const json& metrics) {
  if (!metrics.is_object()) fail(split, " metrics: expected a JSON object");
  json all = read_all_results(output_dir);
  write_file_atomic(output_dir + "/" + split + "_results.json", py_json_dumps(metrics, 4));
  const std::string all_path = output_dir + "/all_results.json";
  all.update(metrics);
  write_file_atomic(all_path, py_json_dumps(all, 4));
}

}  // namespace cpuft
