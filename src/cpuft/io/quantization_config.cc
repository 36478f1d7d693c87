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

namespace {

// Checks the entry field by field against what cpuft quantize writes (quantization_config_json);
// errors are "PATH: quantization_config.FIELD is VALUE; expected WHAT".
struct EntryReader {
  const std::string& path;

  [[noreturn]] void bad(const std::string& field, const std::string& found, const std::string& expected) const {
    fail(path, ": quantization_config.", field, " is ", found, "; expected ", expected);
  }
  const nlohmann::json& get(const nlohmann::json& obj, const std::string& where, const char* key,
                            const std::string& expected) const {
    const auto it = obj.find(key);
    if (it == obj.end()) bad(where + key, "missing", expected);
    return *it;
  }
  // `obj` (at `where`) holds only the keys in `known`.
  void only(const nlohmann::json& obj, const std::string& where, std::initializer_list<const char*> known) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      bool ok = false;
      for (const char* k : known) ok = ok || it.key() == k;
      if (!ok) {
        std::string names;
        for (const char* k : known) names += str_cat(names.empty() ? "" : ", ", k);
        fail(path, ": quantization_config.", where, text_preview(it.key()), ": not a field cpuft writes or reads; expected only ",
             names);
      }
    }
  }
  // obj[key] == want exactly (a string, a boolean): what cpuft can run.
  void equal(const nlohmann::json& obj, const std::string& where, const char* key, const nlohmann::json& want,
             const char* why) const {
    const nlohmann::json& v = get(obj, where, key, str_cat(want.dump(), " (", why, ")"));
    if (v != want) bad(where + key, json_preview(v), str_cat(want.dump(), " (", why, ")"));
  }
  const nlohmann::json& object(const nlohmann::json& obj, const std::string& where, const char* key) const {
    const nlohmann::json& v = get(obj, where, key, "an object as cpuft quantize writes it");
    if (!v.is_object()) bad(where + key, json_preview(v), "an object as cpuft quantize writes it");
    return v;
  }
};

}  // namespace

std::vector<std::string> int8_f32_modules(ModelFamily family, TaskHead head) {
  switch (head) {
    case TaskHead::kQuestionAnswering:
      return {"qa_outputs"};
    case TaskHead::kTokenClassification:
      return {"classifier"};
    case TaskHead::kSequenceClassification:
      return {family == ModelFamily::kDistilBert ? "pre_classifier" : "bert.pooler.dense", "classifier"};
  }
  return {"qa_outputs"};
}

QuantizationConfig read_quantization_config(const nlohmann::json& config, const std::string& path,
                                            const std::vector<std::string>& f32_modules) {
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
  const EntryReader r{path};
  r.only(q, "", {"quant_method", "format_version", "weights", "activations", "modules_not_quantized"});

  const nlohmann::json& w = r.object(q, "", "weights");
  r.only(w, "weights.", {"dtype", "symmetric", "granularity", "scale_tensor"});
  r.equal(w, "weights.", "dtype", "int8", "cpuft runs s8 weights");
  r.equal(w, "weights.", "symmetric", true, "s8 weights without a zero point");
  r.equal(w, "weights.", "granularity", "per_output_channel", "one scale per output channel");
  r.equal(w, "weights.", "scale_tensor", "<linear>.weight_scale", "the scales beside each weight");

  const nlohmann::json& a = r.object(q, "", "activations");
  r.equal(a, "activations.", "dtype", "uint8", "cpuft quantizes activations to u8");
  r.equal(a, "activations.", "symmetric", false, "u8 activations with a zero point");
  const nlohmann::json& scheme =
      r.get(a, "activations.", "scheme", str_cat("\"", kDynamic, "\" or \"", kStatic, "\""));
  QuantizationConfig out;
  if (scheme == kStatic) {
    out.static_activations = true;
    r.only(a, "activations.", {"dtype", "symmetric", "scheme", "range_tensor", "calibration_windows"});
    r.equal(a, "activations.", "range_tensor", "<linear>.input_range", "the calibrated range beside each weight");
    const nlohmann::json& n = r.get(a, "activations.", "calibration_windows", "an integer >= 1");
    if (!n.is_number_integer() || n.get<int64_t>() < 1)
      r.bad("activations.calibration_windows", json_preview(n), "an integer >= 1 (the windows the ranges came from)");
    out.calibration_windows = n.get<int64_t>();
  } else if (scheme == kDynamic) {
    r.only(a, "activations.", {"dtype", "symmetric", "scheme"});
  } else {
    r.bad("activations.scheme", json_preview(scheme), str_cat("\"", kDynamic, "\" or \"", kStatic, "\""));
  }
  const bool qa = f32_modules == std::vector<std::string>{"qa_outputs"};
  r.equal(q, "", "modules_not_quantized", nlohmann::json(f32_modules),
          qa ? "qa_outputs, the one layer cpuft keeps in f32" : "the task head's layers, which cpuft keeps in f32");
  out.f32_modules = f32_modules;
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
          {"modules_not_quantized", nlohmann::json(q.f32_modules)}};
}

std::string weight_scale_name(const std::string& weight_name) { return stem(weight_name) + ".weight_scale"; }

std::string input_range_name(const std::string& weight_name) { return stem(weight_name) + ".input_range"; }

}  // namespace cpuft
