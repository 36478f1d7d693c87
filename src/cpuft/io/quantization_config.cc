#include "cpuft/io/quantization_config.h"

#include <sys/stat.h>

#include "cpuft/util/atomic_file.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

const char* kDynamic = "dynamic_per_token";
const char* kStatic = "static_per_tensor";

std::string stem(const std::string& weight_name) {
  const std::string suffix = ".weight";
  if (weight_name.size() > suffix.size() && weight_name.compare(weight_name.size() - suffix.size(), suffix.size(), suffix) == 0)
    return weight_name.substr(0, weight_name.size() - suffix.size());
  return weight_name;
}

}  // namespace

bool has_quantization_config(const nlohmann::json& config) {
  return config.is_object() && config.contains("quantization_config");
}

bool is_quantized_model_dir(const std::string& dir) {
  const std::string path = dir + "/config.json";
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  try {
    return has_quantization_config(read_json_file(path, kMaxSmallJsonBytes));
  } catch (const std::exception&) {
    return false;
  }
}

QuantizationConfig read_quantization_config(const nlohmann::json& config, const std::string& path) {
  if (!has_quantization_config(config)) fail(path, ": no \"quantization_config\"; expected one written by cpuft quantize");
  const nlohmann::json& q = config["quantization_config"];
  if (!q.is_object()) fail(path, ": \"quantization_config\" is ", json_preview(q), "; expected an object");
  const auto method = q.find("quant_method");
  if (method == q.end() || !method->is_string() || method->get<std::string>() != kInt8QuantMethod)
    fail(path, ": quantization_config.quant_method is ", method == q.end() ? std::string("missing") : json_preview(*method),
         "; cpuft reads only \"", kInt8QuantMethod, "\" (models written by cpuft quantize)");
  const auto version = q.find("format_version");
  if (version == q.end() || !version->is_number_integer() || version->get<int64_t>() != kInt8FormatVersion)
    fail(path, ": quantization_config.format_version is ", version == q.end() ? std::string("missing") : json_preview(*version),
         "; expected ", kInt8FormatVersion);
  const auto acts = q.find("activations");
  const nlohmann::json scheme = acts != q.end() && acts->is_object() && acts->contains("scheme") ? (*acts)["scheme"] : nlohmann::json();
  QuantizationConfig out;
  if (scheme == kStatic) {
    out.static_activations = true;
    const nlohmann::json n = (*acts).value("calibration_windows", nlohmann::json());
    out.calibration_windows = n.is_number_integer() ? n.get<int64_t>() : 0;
  } else if (scheme != kDynamic) {
    fail(path, ": quantization_config.activations.scheme is ", scheme.is_null() ? std::string("missing") : json_preview(scheme),
         "; expected \"", kDynamic, "\" or \"", kStatic, "\"");
  }
  return out;
}

nlohmann::json quantization_config_json(const QuantizationConfig& q) {
  nlohmann::json acts = {{"dtype", "uint8"}, {"symmetric", false}, {"scheme", q.static_activations ? kStatic : kDynamic}};
  if (q.static_activations) {
    acts["range_tensor"] = "<linear>.input_range";
    acts["calibration_windows"] = q.calibration_windows;
  }
  return {{"quant_method", kInt8QuantMethod},
          {"format_version", kInt8FormatVersion},
          {"weights",
           {{"dtype", "int8"}, {"symmetric", true}, {"granularity", "per_output_channel"}, {"scale_tensor", "<linear>.weight_scale"}}},
          {"activations", acts},
          {"modules_not_quantized", {"qa_outputs"}}};
}

std::string weight_scale_name(const std::string& weight_name) { return stem(weight_name) + ".weight_scale"; }

std::string input_range_name(const std::string& weight_name) { return stem(weight_name) + ".input_range"; }

}  // namespace cpuft
