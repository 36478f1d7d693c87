// QaModel::from_pretrained / save_pretrained: Hugging Face model directories in and out.
#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "cpuft/io/model_dir.h"
#include "cpuft/io/quantization_config.h"
#include "cpuft/io/safetensors.h"
#include "cpuft/model/qa_model.h"
#include "cpuft/model/stored_shapes.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/log.h"
#include "cpuft/util/memory.h"
#include "cpuft/util/shape_text.h"

namespace cpuft {
namespace {

// The modules of the head tensors `names` (weight and bias of each): "qa_outputs", "pre_classifier and classifier".
std::string module_names(const std::vector<std::string>& names) {
  std::vector<std::string> modules;
  for (const std::string& n : names) {
    const std::string m = n.substr(0, n.rfind('.'));
    if (std::find(modules.begin(), modules.end(), m) == modules.end()) modules.push_back(m);
  }
  std::string out;
  for (size_t i = 0; i < modules.size(); ++i) out += (i == 0 ? "" : i + 1 == modules.size() ? " and " : ", ") + modules[i];
  return out;
}

}  // namespace

QaModel QaModel::from_pretrained(const std::string& dir, bool bf16, uint64_t seed, const NoticeSink& notices,
                                 const HeadSpec* head) {
  const std::string config_path = dir + "/config.json";
  ModelConfig config = load_model_config(config_path);
  if (head) config.head = *head;
  if (has_quantization_config(config.raw))
    fail(config_path, ": has a \"quantization_config\" (a quantized model, for evaluate and predict only); "
         "training needs the full-precision model it was quantized from");
  // Everything the config implies is checked against the safetensors header before the model is
  // allocated: a config that disagrees with its weights costs an error line, not gigabytes.
  const ParamTable table(config);
  WeightFiles weights(dir, config.family);
  const size_t head_begin = table.head().begin;
  const auto in_head = [&](const std::string& name) { return table.find(name)->offset >= head_begin; };
  const std::vector<std::string> missing_head = check_stored_shapes(table, weights, dir, config_path, in_head);
  check_fits_in_memory(weight_bytes(config, bf16), str_cat(config_path, ": ", config.layers, " layers of width ",
                                                           config.hidden, " (", table.total(), " parameters)"));
  QaModel model(config, bf16, Unfilled{});  // every parameter is read below or is a missing head's
  for (const ParamEntry& e : table.entries()) {
    const WeightTensor* t = weights.find(e.name);
    if (!t) continue;
    float* p = model.params() + e.offset;
    t->reader->read_f32(*t->info, p);
    const size_t bad = static_cast<size_t>(std::count_if(p, p + e.numel, [](float x) { return !std::isfinite(x); }));
    if (bad > 0)
      notices(LogLevel::kWarn, str_cat(t->reader->path(), ": tensor ", t->info->name, " holds ", bad,
                                      " NaN or infinite value(s) of ", e.numel,
                                      "; training and answers will not be meaningful"));
  }
  // Tensors of the weight files that the QA model has no use for: pooler, pre-training heads, ...
  std::vector<std::string> extra = weights.ignored_keys();
  for (const auto& [name, t] : weights.tensors())
    if (!table.find(name)) extra.push_back(t.info->name);
  if (!extra.empty())
    notices(LogLevel::kNotice, str_cat("ignored ", extra.size(), " stored tensor(s) the ", task_name(config.head.task),
                                      " model does not use (first: ",
                                      text_preview(extra.front(), 80), ")"));
  if (!missing_head.empty()) {
    // A fresh head as transformers' _init_weights makes it: weight ~ N(0, initializer_range), bias 0.
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.f, config.initializer_range);
    for (const std::string& name : missing_head) {
      const ParamEntry* e = table.find(name);
      float* p = model.params() + e->offset;
      for (size_t i = 0; i < e->numel; ++i) p[i] = e->decay ? normal(rng) : 0.f;
    }
    notices(LogLevel::kNotice, str_cat(dir, " has no ", module_names(missing_head), "; initialised the weight",
                                      missing_head.size() > 2 ? "s" : "", " ~ N(0, ", config.initializer_range,
                                      ") with seed ", seed, " and the bias", missing_head.size() > 2 ? "es" : "",
                                      " to 0"));
  }
  model.refresh_bf16_weights();
  return model;
}

void QaModel::save_pretrained(const std::string& dir) const {
  std::vector<StTensorOut> out;
  for (const ParamEntry& e : table_.entries()) {
    StTensorOut t;
    t.name = e.name;
    t.shape = e.shape;
    t.f32 = params_.data() + e.offset;
    out.push_back(std::move(t));
  }
  write_safetensors(dir + "/model.safetensors", out);
  save_model_config(config_, dir + "/config.json");
}

}  // namespace cpuft
