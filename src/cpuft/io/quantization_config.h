// The "quantization_config" entry of an int8 model directory's config.json, written by `cpuft
// quantize` (docs/quantization.md), and the names of the extra tensors such a directory holds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cpuft/io/hf_config.h"

namespace cpuft {

constexpr const char* kInt8QuantMethod = "cpuft_int8";
constexpr int kInt8FormatVersion = 1;
// The largest weight scale read: 127 x 65536 (8.3e6) is beyond any trained weight, and larger scales
// would overflow the f32 products of the layers after.
constexpr float kMaxInt8WeightScale = 65536.f;

struct QuantizationConfig {
  bool static_activations = false;  // input ranges from calibration (else dynamic, per token)
  int64_t calibration_windows = 0;  // how many windows the ranges came from (static only)
  // modules_not_quantized: the task head's linear layers, which stay f32 (int8_f32_modules).
  std::vector<std::string> f32_modules = {"qa_outputs"};
};

// The modules a cpuft int8 model keeps in f32, by their parameter-name stems: the task head's linear
// layers. Question answering: qa_outputs; token classification: classifier; sequence classification:
// DistilBERT's pre_classifier and classifier, BERT's bert.pooler.dense and classifier.
std::vector<std::string> int8_f32_modules(ModelFamily family, TaskHead head);

// True when the config (config.json as read) has a "quantization_config" entry, of any method.
bool has_quantization_config(const nlohmann::json& config);

// True when dir/config.json exists, parses, and has a "quantization_config" entry (false otherwise:
// the model loader then reports what is wrong with the file).
bool is_quantized_model_dir(const std::string& dir);

// Reads and checks the entry of a cpuft int8 directory field by field against what cpuft quantize
// writes: every field must be there with the one value cpuft can run (calibration_windows: an integer
// >= 1, static activations only; modules_not_quantized: `f32_modules`, the head's layers of the model
// config.json describes), and no other field. Throws cpuft::Error naming `path`, the field, the value
// found and what was expected.
QuantizationConfig read_quantization_config(const nlohmann::json& config, const std::string& path,
                                            const std::vector<std::string>& f32_modules = {"qa_outputs"});

// The entry as written into config.json.
nlohmann::json quantization_config_json(const QuantizationConfig& q);

// Tensor names: the int8 weight keeps the f32 weight's name ("...query.weight", dtype I8); beside it
// "...query.weight_scale" (F32 [out]) and, with static activations, "...query.input_range" (F32 [2]:
// the minimum and maximum of the layer's input over the calibration windows).
std::string weight_scale_name(const std::string& weight_name);
std::string input_range_name(const std::string& weight_name);

}  // namespace cpuft
