// config.json of DistilBERT and BERT models, read with the defaults and aliases of transformers'
// DistilBertConfig / BertConfig (docs/parity.md, Model).
#include "cpuft/io/hf_config.h"

#include <cmath>
#include <limits>
#include <vector>

#include "cpuft/util/atomic_file.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

using json = nlohmann::json;

// Largest sizes accepted, far above any BERT-family encoder (BERT-large: 1024 wide, 24 layers, 4096
// intermediate; multilingual vocabularies: 250k), so that a mistyped or hostile config is refused
// before anything is sized from it. What fits in memory is checked later (model/qa_model.h).
constexpr int64_t kMaxHidden = 65536;
constexpr int64_t kMaxLayers = 512;
constexpr int64_t kMaxHeads = 1024;
constexpr int64_t kMaxIntermediate = 262144;
constexpr int64_t kMaxVocab = int64_t{1} << 24;
constexpr int64_t kMaxPositions = 131072;
constexpr int64_t kMaxTypeVocab = 1024;

// Reads typed fields of one config object; each accessor takes the field's names (canonical first,
// then attribute_map aliases) and the default transformers uses when none is present.
class Fields {
 public:
  Fields(const std::string& path, const json& root) : path_(path), root_(root) {}

  int64_t integer(std::initializer_list<const char*> names, int64_t fallback) const {
    const char* name = nullptr;
    const json* v = find(names, &name);
    if (!v) return fallback;
    if (!v->is_number_integer() || (v->is_number_unsigned() && v->get<uint64_t>() > INT64_MAX))
      fail(path_, ": \"", name, "\" is ", json_preview(*v), "; expected an integer");
    return v->get<int64_t>();
  }

  int64_t positive(std::initializer_list<const char*> names, int64_t fallback, int64_t max) const {
    int64_t value = integer(names, fallback);
    if (value <= 0 || value > max)
      fail(path_, ": \"", *names.begin(), "\" is ", value, "; expected a positive integer up to ", max);
    return value;
  }

  float number(const char* name, float fallback, float lo, float hi) const {
    const char* found = nullptr;
    const json* v = find({name}, &found);
    if (!v) return fallback;
    if (!v->is_number()) fail(path_, ": \"", name, "\" is ", json_preview(*v), "; expected a number");
    double value = v->get<double>();
    if (!(value >= lo && value <= hi)) {
      fail(path_, ": \"", name, "\" is ", json_preview(*v), "; expected a number in [", lo, ", ", hi, "]");
    }
    return static_cast<float>(value);
  }

  bool boolean(const char* name, bool fallback) const {
    const char* found = nullptr;
    const json* v = find({name}, &found);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(path_, ": \"", name, "\" is ", json_preview(*v), "; expected true or false");
    return v->get<bool>();
  }

  std::string string(const char* name, const char* fallback) const {
    const char* found = nullptr;
    const json* v = find({name}, &found);
    if (!v) return fallback;
    if (!v->is_string()) fail(path_, ": \"", name, "\" is ", json_preview(*v), "; expected a string");
    return v->get<std::string>();
  }

  // pad_token_id may be null (no padding row); the engine only uses it at random init, so null
  // reads as the default.
  bool is_null(const char* name) const { return root_.contains(name) && root_[name].is_null(); }

 private:
  // The value under the first present name; two names present with different values is an error
  // (transformers would keep whichever it happened to set last).
  const json* find(std::initializer_list<const char*> names, const char** found) const {
    const json* value = nullptr;
    for (const char* name : names) {
      auto it = root_.find(name);
      if (it == root_.end()) continue;
      if (value && *value != *it) {
        fail(path_, ": \"", *found, "\" is ", json_preview(*value), " but its alias \"", name, "\" is ",
             json_preview(*it), "; expected one value");
      }
      if (!value) value = &*it, *found = name;
    }
    return value;
  }

  const std::string& path_;
  const json& root_;
};

// config.json's names for the fields of ModelConfig, per family: the one table that reading
// (read_family) and writing (fields_of) go by. `alias` is the other name transformers' attribute_map
// accepts (DistilBERT takes BERT's names); `fallback` its config class's default.
struct SizeKey {
  int64_t ModelConfig::*field;
  const char* name;
  const char* alias;
  int64_t fallback;
  int64_t max;
};
struct RateKey {  // a dropout probability
  float ModelConfig::*field;
  const char* name;
  float fallback;
};
struct FamilyKeys {
  std::vector<SizeKey> sizes;  // hidden first, heads second (the divisibility check names them)
  std::vector<RateKey> rates;
  const char* activation;
};

const FamilyKeys& keys_of(ModelFamily family) {
  static const FamilyKeys distilbert{
      {{&ModelConfig::hidden, "dim", "hidden_size", 768, kMaxHidden},
       {&ModelConfig::heads, "n_heads", "num_attention_heads", 12, kMaxHeads},
       {&ModelConfig::layers, "n_layers", "num_hidden_layers", 6, kMaxLayers},
       {&ModelConfig::intermediate, "hidden_dim", nullptr, 4 * 768, kMaxIntermediate}},
      {{&ModelConfig::hidden_dropout, "dropout", 0.1f},
       {&ModelConfig::attention_dropout, "attention_dropout", 0.1f},
       {&ModelConfig::qa_dropout, "qa_dropout", 0.1f},
       {&ModelConfig::seq_classif_dropout, "seq_classif_dropout", 0.2f}},
      "activation"};
  static const FamilyKeys bert{
      {{&ModelConfig::hidden, "hidden_size", nullptr, 768, kMaxHidden},
       {&ModelConfig::heads, "num_attention_heads", nullptr, 12, kMaxHeads},
       {&ModelConfig::layers, "num_hidden_layers", nullptr, 12, kMaxLayers},
       {&ModelConfig::intermediate, "intermediate_size", nullptr, 3072, kMaxIntermediate},
       {&ModelConfig::type_vocab_size, "type_vocab_size", nullptr, 2, kMaxTypeVocab}},
      {{&ModelConfig::hidden_dropout, "hidden_dropout_prob", 0.1f},
       {&ModelConfig::attention_dropout, "attention_probs_dropout_prob", 0.1f}},
      "hidden_act"};
  return family == ModelFamily::kDistilBert ? distilbert : bert;
}

void read_family(const std::string& path, const Fields& f, ModelConfig* c) {
  const FamilyKeys& keys = keys_of(c->family);
  for (const SizeKey& k : keys.sizes)
    c->*k.field = k.alias ? f.positive({k.name, k.alias}, k.fallback, k.max) : f.positive({k.name}, k.fallback, k.max);
  for (const RateKey& k : keys.rates) c->*k.field = f.number(k.name, k.fallback, 0, 1);
  c->activation = f.string(keys.activation, "gelu");
  if (c->activation != "gelu")
    fail(path, ": \"", keys.activation, "\" is ", json_preview(c->activation), "; cpuft supports only \"gelu\"");
  if (c->family == ModelFamily::kDistilBert) {
    c->layer_norm_eps = 1e-12f;  // hard-coded in modeling_distilbert.py
    c->type_vocab_size = 0;
    // Fixed sinusoidal position embeddings (not trained) are a model cpuft does not build.
    if (f.boolean("sinusoidal_pos_embds", false))
      fail(path, ": \"sinusoidal_pos_embds\" is true; cpuft supports only learned position embeddings (false)");
  } else {
    c->qa_dropout = 0;  // BertForQuestionAnswering has no dropout before qa_outputs
    c->classifier_dropout = f.is_null("classifier_dropout") ? -1.f : f.number("classifier_dropout", -1.f, 0, 1);
    c->layer_norm_eps = f.number("layer_norm_eps", 1e-12f, std::numeric_limits<float>::min(), 1);
    const std::string positions = f.string("position_embedding_type", "absolute");
    if (positions != "absolute")
      fail(path, ": \"position_embedding_type\" is ", json_preview(positions), "; cpuft supports only \"absolute\"");
  }
  const SizeKey& hidden = keys.sizes[0];
  const SizeKey& heads = keys.sizes[1];
  if (c->hidden % c->heads != 0)
    fail(path, ": \"", hidden.name, "\" ", c->hidden, " is not divisible by \"", heads.name, "\" ", c->heads);
}

// The fields of a config built in code (no file read), under transformers' names.
json fields_of(const ModelConfig& c) {
  json j;
  j["vocab_size"] = c.vocab_size;
  j["max_position_embeddings"] = c.max_position_embeddings;
  j["initializer_range"] = c.initializer_range;
  j["pad_token_id"] = c.pad_token_id;
  const FamilyKeys& keys = keys_of(c.family);
  for (const SizeKey& k : keys.sizes) j[k.name] = c.*k.field;
  for (const RateKey& k : keys.rates) j[k.name] = c.*k.field;
  j[keys.activation] = c.activation;
  if (c.family == ModelFamily::kDistilBert) {
    j["sinusoidal_pos_embds"] = false;
  } else {
    j["layer_norm_eps"] = c.layer_norm_eps;
    j["position_embedding_type"] = "absolute";
    j["classifier_dropout"] = c.classifier_dropout < 0 ? json(nullptr) : json(c.classifier_dropout);
  }
  return j;
}

bool ends_with(const std::string& s, const char* tail) {
  const size_t n = std::char_traits<char>::length(tail);
  return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
}

constexpr int64_t kMaxLabels = 1 << 20;

// The head config.json describes (hf_config.h, load_model_config).
HeadSpec read_head(const std::string& path, const json& root) {
  HeadSpec h;
  const auto arch = root.find("architectures");
  if (arch == root.end() || !arch->is_array() || arch->empty() || !(*arch)[0].is_string()) return h;
  const std::string name = (*arch)[0].get<std::string>();
  if (ends_with(name, "ForSequenceClassification"))
    h.task = TaskHead::kSequenceClassification;
  else if (ends_with(name, "ForTokenClassification"))
    h.task = TaskHead::kTokenClassification;
  else
    return h;
  const Fields f(path, root);
  h.num_labels = f.positive({"num_labels"}, 2, kMaxLabels);
  const auto id2label = root.find("id2label");
  if (id2label != root.end() && !id2label->is_null()) {
    if (!id2label->is_object() || id2label->empty() || id2label->size() > static_cast<size_t>(kMaxLabels))
      fail(path, ": \"id2label\" is ", json_preview(*id2label), "; expected an object {\"0\": label, ...}");
    for (size_t i = 0; i < id2label->size(); ++i)
      if (!id2label->contains(std::to_string(i)))
        fail(path, ": \"id2label\" has no key \"", i, "\"; expected the keys \"0\" .. \"", id2label->size() - 1, "\"");
    h.num_labels = static_cast<int64_t>(id2label->size());
    h.id2label = *id2label;
    const auto label2id = root.find("label2id");
    h.label2id = label2id != root.end() && label2id->is_object() ? *label2id : json::object();
  }
  if (h.task == TaskHead::kSequenceClassification) {
    const std::string problem = f.is_null("problem_type") ? "" : f.string("problem_type", "");
    if (problem == "regression")
      h.regression = true;
    else if (problem.empty())
      h.regression = h.num_labels == 1;
    else if (problem != "single_label_classification")
      fail(path, ": \"problem_type\" is ", json_preview(problem),
           "; cpuft supports \"single_label_classification\" and \"regression\"");
    if (h.regression && h.num_labels != 1)
      fail(path, ": \"problem_type\" \"regression\" with ", h.num_labels, " labels; expected 1");
  }
  return h;
}

}  // namespace

const char* model_type_name(ModelFamily family) { return family == ModelFamily::kDistilBert ? "distilbert" : "bert"; }

const char* qa_architecture_name(ModelFamily family) {
  return family == ModelFamily::kDistilBert ? "DistilBertForQuestionAnswering" : "BertForQuestionAnswering";
}

std::string architecture_name(ModelFamily family, TaskHead head) {
  const std::string base = family == ModelFamily::kDistilBert ? "DistilBert" : "Bert";
  switch (head) {
    case TaskHead::kSequenceClassification: return base + "ForSequenceClassification";
    case TaskHead::kTokenClassification: return base + "ForTokenClassification";
    case TaskHead::kQuestionAnswering: break;
  }
  return qa_architecture_name(family);
}

const char* task_name(TaskHead head) {
  switch (head) {
    case TaskHead::kSequenceClassification: return "text-classification";
    case TaskHead::kTokenClassification: return "token-classification";
    case TaskHead::kQuestionAnswering: break;
  }
  return "question-answering";
}

float ModelConfig::head_dropout() const {
  const bool distil = family == ModelFamily::kDistilBert;
  switch (head.task) {
    case TaskHead::kQuestionAnswering: return distil ? qa_dropout : 0.f;
    case TaskHead::kSequenceClassification:
      if (distil) return seq_classif_dropout;
      break;
    case TaskHead::kTokenClassification:
      if (distil) return hidden_dropout;
      break;
  }
  return classifier_dropout >= 0 ? classifier_dropout : hidden_dropout;
}

ModelConfig load_model_config(const std::string& path) {
  return parse_model_config(read_file(path, kMaxSmallJsonBytes), path);
}

ModelConfig parse_model_config(std::string_view text, const std::string& path) {
  ModelConfig c;
  c.raw = parse_json(text, path);
  if (!c.raw.is_object()) fail(path, ": top level is ", c.raw.type_name(), "; expected a JSON object");
  auto type = c.raw.find("model_type");
  if (type == c.raw.end()) fail(path, ": missing \"model_type\"; expected \"distilbert\" or \"bert\"");
  if (!type->is_string()) fail(path, ": \"model_type\" is ", json_preview(*type), "; expected a string");
  std::string model_type = type->get<std::string>();

  Fields f(path, c.raw);
  if (model_type == model_type_name(ModelFamily::kDistilBert)) {
    c.family = ModelFamily::kDistilBert;
  } else if (model_type == model_type_name(ModelFamily::kBert)) {
    c.family = ModelFamily::kBert;
  } else {
    fail(path, ": model_type ", json_preview(model_type), " is not supported; supported: \"distilbert\", \"bert\"");
  }
  c.vocab_size = f.positive({"vocab_size"}, 30522, kMaxVocab);
  c.max_position_embeddings = f.positive({"max_position_embeddings"}, 512, kMaxPositions);
  c.initializer_range = f.number("initializer_range", 0.02f, 0, 1e3f);
  c.pad_token_id = f.is_null("pad_token_id") ? 0 : f.integer({"pad_token_id"}, 0);
  if (c.pad_token_id < 0 || c.pad_token_id >= c.vocab_size) {
    fail(path, ": \"pad_token_id\" is ", c.pad_token_id, "; expected a token id in [0, ", c.vocab_size, ")");
  }
  read_family(path, f, &c);
  c.head = read_head(path, c.raw);
  return c;
}

void save_model_config(const ModelConfig& config, const std::string& path) {
  json out = config.raw.is_object() ? config.raw : fields_of(config);
  out["model_type"] = model_type_name(config.family);
  out["architectures"] = json::array({architecture_name(config.family, config.head.task)});
  if (config.head.task != TaskHead::kQuestionAnswering) {
    json id2label = config.head.id2label, label2id = config.head.label2id;
    if (!id2label.is_object()) {  // transformers' default names
      id2label = json::object();
      label2id = json::object();
      for (int64_t i = 0; i < config.head.num_labels; ++i) {
        id2label[std::to_string(i)] = "LABEL_" + std::to_string(i);
        label2id["LABEL_" + std::to_string(i)] = i;
      }
    }
    out["id2label"] = id2label;
    out["label2id"] = label2id;
    out.erase("num_labels");  // transformers derives it from id2label
  }
  if (config.head.task == TaskHead::kSequenceClassification)
    out["problem_type"] = config.head.regression ? "regression" : "single_label_classification";
  out["torch_dtype"] = "float32";
  // transformers 5 names the entry "dtype"; keep the two consistent when the input had it.
  if (out.contains("dtype")) out["dtype"] = "float32";
  write_file_atomic(path, out.dump(2, ' ', true) + "\n");
}

}  // namespace cpuft
