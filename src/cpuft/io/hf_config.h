// config.json of a Hugging Face model directory: DistilBERT and BERT (MiniLM) mapped onto one
// ModelConfig (docs/parity.md, Model).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace cpuft {

enum class ModelFamily { kDistilBert, kBert };

// The task head on the encoder (docs/tasks.md): transformers' *ForQuestionAnswering,
// *ForSequenceClassification or *ForTokenClassification.
enum class TaskHead { kQuestionAnswering, kSequenceClassification, kTokenClassification };

// What config.json says of the head: read from "architectures", "id2label" / "label2id" and
// "problem_type"; set by the task when a run builds a new head.
struct HeadSpec {
  TaskHead task = TaskHead::kQuestionAnswering;
  int64_t num_labels = 2;            // classes of a classification head (1: regression)
  bool regression = false;           // sequence classification with problem_type "regression" (MSE loss)
  nlohmann::json id2label, label2id;  // as config.json holds them (null for question answering)
};

struct ModelConfig {
  ModelFamily family = ModelFamily::kDistilBert;
  int64_t vocab_size = 30522;
  int64_t max_position_embeddings = 512;
  int64_t type_vocab_size = 0;  // 0 for DistilBERT (no token-type embeddings), 2 for BERT
  int64_t hidden = 768;         // dim / hidden_size
  int64_t layers = 6;           // n_layers / num_hidden_layers
  int64_t heads = 12;           // n_heads / num_attention_heads
  int64_t intermediate = 3072;  // hidden_dim / intermediate_size
  float hidden_dropout = 0.1f;     // dropout / hidden_dropout_prob
  float attention_dropout = 0.1f;  // attention_dropout / attention_probs_dropout_prob
  float qa_dropout = 0.1f;         // DistilBERT qa_dropout; 0 for BERT (no dropout before qa_outputs)
  float seq_classif_dropout = 0.2f;  // DistilBERT: the dropout before a sequence head's classifier
  float classifier_dropout = -1.f;   // BERT classifier_dropout; -1 when null (hidden_dropout applies)
  float layer_norm_eps = 1e-12f;
  float initializer_range = 0.02f;
  int64_t pad_token_id = 0;
  std::string activation = "gelu";  // only "gelu" (exact erf form) is supported
  HeadSpec head;
  nlohmann::json raw;               // the file as read, written back on save with our changes

  int64_t head_dim() const { return hidden / heads; }
  const char* prefix() const { return family == ModelFamily::kDistilBert ? "distilbert." : "bert."; }
  // The dropout probability before the head's last Linear (qa_outputs / classifier), as each
  // transformers class sets it (docs/tasks.md).
  float head_dropout() const;
};

// transformers' names of a family: config.json's "model_type" ("distilbert", "bert") and the
// question-answering architecture ("DistilBertForQuestionAnswering", "BertForQuestionAnswering").
const char* model_type_name(ModelFamily family);
const char* qa_architecture_name(ModelFamily family);
// The architecture of a family with a head: "DistilBertForSequenceClassification", ...
std::string architecture_name(ModelFamily family, TaskHead head);
// The task of a --task value: "question-answering", "text-classification", "token-classification".
const char* task_name(TaskHead head);

// Reads and validates config.json; throws cpuft::Error naming the file, field, value and expectation.
// Missing optional fields take transformers' defaults (DistilBertConfig / BertConfig; DistilBERT
// also accepts hidden_size, num_attention_heads, num_hidden_layers). A null pad_token_id reads as 0.
// Rejected: invalid JSON (line/column), missing or unsupported model_type, wrong JSON types,
// non-positive sizes, dropouts outside [0, 1], hidden not divisible by heads, activation other than
// "gelu", position_embedding_type other than "absolute", sinusoidal_pos_embds true (fixed position
// embeddings), sizes beyond generous bounds (hidden 65536, 512 layers, 1024 heads, intermediate
// 262144, vocabulary 2^24, 131072 positions, 1024 token types).
// The file must be a regular file of at most 16 MiB with JSON nested at most 64 deep
// (util/json_read.h); values in messages are short previews.
ModelConfig load_model_config(const std::string& path);

// The same from the text of a config.json; `path` names it in errors.
ModelConfig parse_model_config(std::string_view text, const std::string& path);

// The head: "architectures" ending in ForSequenceClassification or ForTokenClassification makes a
// classification head of len(id2label) labels (num_labels when there is no id2label; 2 when neither),
// a regression when problem_type is "regression" or (unset) there is one label; anything else is
// question answering. id2label must be an object with keys "0" .. "n-1".
//
// Writes config.json for a fine-tuned model, atomically, indent 2, keys sorted, ASCII-escaped
// like transformers: `raw` (or, when raw is not an object, the fields of `config` under
// transformers' names) with "model_type", "architectures" = [architecture_name(family, head)],
// for a classification head "id2label", "label2id" (and "problem_type" for sequence
// classification), and "torch_dtype" (and "dtype" when present) = "float32".
void save_model_config(const ModelConfig& config, const std::string& path);

}  // namespace cpuft
