// The results files of run_qa (docs/parity.md, Files), byte for byte as transformers writes them:
// {train,eval,predict}_results.json and all_results.json (indent 4, sorted keys, no trailing newline),
// and the speed metrics they carry. Written by training and by inference.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace cpuft {

// Inputs of speed_metrics: runtime in seconds, the sample and step counts it divides.
struct SpeedInputs {
  double runtime_s = 0;
  double num_samples = 0;
  double num_steps = 0;
};

// transformers' speed_metrics(split, ...): {split_runtime: round(t, 4), split_samples_per_second:
// round(n / t, 3), split_steps_per_second: round(s / t, 3)}; only the runtime when t == 0.
nlohmann::json speed_metrics(const std::string& split, const SpeedInputs& in);

// What an evaluation of num_samples features in steps of global_batch (per-device batch x ranks) adds
// to its metrics: speed_metrics over ceil(num_samples / global_batch) steps, and split_samples.
nlohmann::json evaluation_speed_metrics(const std::string& split, double runtime_s, int64_t num_samples,
                                        int64_t global_batch);

// Writes output_dir/{split}_results.json and merges the same keys into output_dir/all_results.json
// (as Trainer.save_metrics(split, metrics, combined=True)). Atomic writes.
void save_metrics(const std::string& output_dir, const std::string& split, const nlohmann::json& metrics);

// Throws what save_metrics would when output_dir/all_results.json exists but cannot be merged into
// (not a regular file, not JSON, nested too deep, not an object): called before the work whose
// results it would receive.
void check_results_file(const std::string& output_dir);

}  // namespace cpuft
