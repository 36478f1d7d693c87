// QaModel::from_pretrained / save_pretrained: Hugging Face model directories in and out.
#include <ostream>
#include <random>
#include <sstream>

#include "cpuft/io/model_dir.h"
#include "cpuft/io/safetensors.h"
#include "cpuft/model/qa_model.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

std::string shape_str(const std::vector<int64_t>& s) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << ']';
  return os.str();
}

bool is_qa_head(const std::string& name) { return name.rfind("qa_outputs.", 0) == 0; }

}  // namespace

QaModel QaModel::from_pretrained(const std::string& dir, bool bf16, uint64_t seed, std::ostream& notices) {
  ModelConfig config = load_model_config(dir + "/config.json");
  QaModel model(config, bf16, seed);
  Checkpoint ckpt(dir, config.family);
  const ParamTable& table = model.table();

  std::vector<std::string> missing_head;
  for (const ParamEntry& e : table.entries()) {
    const CheckpointTensor* t = ckpt.find(e.name);
    if (!t) {
      if (is_qa_head(e.name)) {
        missing_head.push_back(e.name);
        continue;
      }
      fail(ckpt.files().empty() ? dir : ckpt.files().front(), ": tensor ", e.name, " is missing; expected shape ",
           shape_str(e.shape));
    }
    if (t->info->shape != e.shape)
      fail(t->reader->path(), ": tensor ", t->info->name, " has shape ", shape_str(t->info->shape),
           ", expected ", shape_str(e.shape));
    t->reader->read_f32(*t->info, model.params() + e.offset);
  }
  // Tensors of the checkpoint that the QA model has no use for: pooler, pre-training heads, ...
  size_t extra = ckpt.ignored_keys().size();
  for (const auto& [name, t] : ckpt.tensors())
    if (!table.find(name)) ++extra;
  if (extra > 0)
    notices << "cpuft: ignored " << extra << " checkpoint tensor(s) the QA model does not use (e.g. "
            << (ckpt.ignored_keys().empty() ? std::string("?") : ckpt.ignored_keys().front()) << ")\n";
  if (!missing_head.empty()) {
    // Fresh head as transformers' _init_weights: weight ~ N(0, initializer_range), bias 0.
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.f, config.initializer_range);
    const ParamEntry* w = table.find("qa_outputs.weight");
    const ParamEntry* b = table.find("qa_outputs.bias");
    for (size_t i = 0; i < w->numel; ++i) model.params()[w->offset + i] = normal(rng);
    std::fill_n(model.params() + b->offset, b->numel, 0.f);
    notices << "cpuft: " << dir << " has no qa_outputs; initialised qa_outputs.weight ~ N(0, "
            << config.initializer_range << ") with seed " << seed << " and qa_outputs.bias = 0\n";
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
