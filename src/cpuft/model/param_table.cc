#include "cpuft/model/param_table.h"

#include <cctype>
#include <regex>

namespace cpuft {
namespace {

// The Trainer's weight-decay groups (get_decay_parameter_names, docs/parity.md, Training): decay unless
// the lower-cased name matches a bias or normalisation pattern.
bool in_decay_set(const std::string& name) {
  std::string n = name;
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::regex no_decay("bias|layernorm|rmsnorm|(?:^|\\.)norm(?:$|\\.)|_norm(?:$|\\.)");
  return !std::regex_search(n, no_decay);
}

}  // namespace

size_t ParamTable::add(const std::string& name, std::vector<int64_t> shape, bool decay, bool gemm) {
  ParamEntry e;
  e.name = name;
  e.numel = 1;
  for (int64_t d : shape) e.numel *= static_cast<size_t>(d);
  e.shape = std::move(shape);
  e.offset = total_;
  e.decay = decay;
  e.gemm_weight = gemm;
  total_ += e.numel;
  entries_.push_back(std::move(e));
  return entries_.back().offset;
}

LinearOffsets ParamTable::add_linear(const std::string& name, int64_t out, int64_t in) {
  LinearOffsets l;
  l.w = add(name + ".weight", {out, in}, in_decay_set(name + ".weight"), true);
  l.b = add(name + ".bias", {out}, in_decay_set(name + ".bias"), false);
  return l;
}

void ParamTable::add_qkv(LayerOffsets& l, const std::string& q, const std::string& k, const std::string& v,
                         int64_t h) {
  LinearOffsets* parts[] = {&l.q, &l.k, &l.v};
  const std::string* names[] = {&q, &k, &v};
  for (int i = 0; i < 3; ++i) parts[i]->w = add(*names[i] + ".weight", {h, h}, in_decay_set(*names[i] + ".weight"), true);
  for (int i = 0; i < 3; ++i) parts[i]->b = add(*names[i] + ".bias", {h}, in_decay_set(*names[i] + ".bias"), false);
  l.qkv = {l.q.w, l.q.b};
}

NormOffsets ParamTable::add_norm(const std::string& name, int64_t n) {
  NormOffsets l;
  l.w = add(name + ".weight", {n}, in_decay_set(name + ".weight"), false);
  l.b = add(name + ".bias", {n}, in_decay_set(name + ".bias"), false);
  return l;
}

ParamTable::ParamTable(const ModelConfig& c) {
  const bool distil = c.family == ModelFamily::kDistilBert;
  const std::string p = c.prefix();
  const int64_t h = c.hidden;
  emb_.begin = total_;
  emb_.word = add(p + "embeddings.word_embeddings.weight", {c.vocab_size, h}, true, false);
  emb_.position = add(p + "embeddings.position_embeddings.weight", {c.max_position_embeddings, h}, true, false);
  if (!distil && c.type_vocab_size > 0)
    emb_.token_type = add(p + "embeddings.token_type_embeddings.weight", {c.type_vocab_size, h}, true, false);
  emb_.ln = add_norm(p + "embeddings.LayerNorm", h);
  emb_.end = total_;
  for (int64_t i = 0; i < c.layers; ++i) {
    LayerOffsets l;
    l.begin = total_;
    if (distil) {
      const std::string s = p + "transformer.layer." + std::to_string(i) + ".";
      add_qkv(l, s + "attention.q_lin", s + "attention.k_lin", s + "attention.v_lin", h);
      l.o = add_linear(s + "attention.out_lin", h, h);
      l.ln1 = add_norm(s + "sa_layer_norm", h);
      l.ff1 = add_linear(s + "ffn.lin1", c.intermediate, h);
      l.ff2 = add_linear(s + "ffn.lin2", h, c.intermediate);
      l.ln2 = add_norm(s + "output_layer_norm", h);
    } else {
      const std::string s = p + "encoder.layer." + std::to_string(i) + ".";
      add_qkv(l, s + "attention.self.query", s + "attention.self.key", s + "attention.self.value", h);
      l.o = add_linear(s + "attention.output.dense", h, h);
      l.ln1 = add_norm(s + "attention.output.LayerNorm", h);
      l.ff1 = add_linear(s + "intermediate.dense", c.intermediate, h);
      l.ff2 = add_linear(s + "output.dense", h, c.intermediate);
      l.ln2 = add_norm(s + "output.LayerNorm", h);
    }
    l.end = total_;
    layers_.push_back(l);
  }
  head_.begin = total_;
  switch (c.head.task) {
    case TaskHead::kQuestionAnswering:
      head_.out = add_linear("qa_outputs", 2, h);
      break;
    case TaskHead::kSequenceClassification:
      head_.has_dense = true;
      head_.dense = add_linear(distil ? "pre_classifier" : p + "pooler.dense", h, h);
      head_.out = add_linear("classifier", c.head.num_labels, h);
      break;
    case TaskHead::kTokenClassification:
      head_.out = add_linear("classifier", c.head.num_labels, h);
      break;
  }
  head_.width = c.head.task == TaskHead::kQuestionAnswering ? 2 : c.head.num_labels;
  head_.end = total_;
}

const ParamEntry* ParamTable::find(const std::string& name) const {
  for (const ParamEntry& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace cpuft
