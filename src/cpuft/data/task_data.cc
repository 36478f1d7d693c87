#include "cpuft/data/task_data.h"

#include <algorithm>

#include "cpuft/data/sequence_features.h"
#include "cpuft/data/table_file.h"
#include "cpuft/data/token_features.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {
namespace {

using json = nlohmann::json;

// What Python's str() prints of an id2label value.
std::string python_str(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  return v.dump();
}

// run_ner's columns; a test file needs only the words (its tags, if any, are not read).
TokenColumns token_columns_of(const TokenFile& file, const TokenColumnFlags& flags, Split split) {
  const bool has_tokens = std::find(file.columns.begin(), file.columns.end(), "tokens") != file.columns.end();
  if (split == Split::kTest && file.columns.size() == 1 && flags.text_column_name.empty() && has_tokens)
    return TokenColumns{"tokens", ""};
  return choose_token_columns(file, flags);
}

template <typename T>
void keep_first(std::vector<T>& v, std::optional<int64_t> n) {
  if (n && static_cast<size_t>(*n) < v.size()) v.resize(static_cast<size_t>(*n));
}

}  // namespace

HeadSpec TaskLabels::head() const {
  HeadSpec h;
  h.task = task;
  if (task == TaskHead::kSequenceClassification) {
    h.num_labels = labels.num_labels();
    h.regression = labels.regression();
    h.id2label = config_id2label(labels);
    h.label2id = config_label2id(labels);
    return h;
  }
  h.num_labels = static_cast<int64_t>(tags.names.size());
  h.id2label = json::object();
  h.label2id = json::object();
  for (size_t i = 0; i < tags.names.size(); ++i) {
    h.id2label[std::to_string(i)] = tags.values[i];
    h.label2id[tags.names[i]] = static_cast<int64_t>(i);
  }
  return h;
}

TaskLabels labels_of_training_file(const std::string& path, const TaskOptions& options) {
  TaskLabels out;
  out.task = options.task;
  if (options.task == TaskHead::kTokenClassification) {
    const TokenFile file = read_token_file(path);
    out.tags = read_tag_set(file, choose_token_columns(file, options.token_columns));
  } else {
    out.labels = read_label_set(read_table(path));
  }
  return out;
}

TaskLabels labels_of_model(const HeadSpec& head, TaskHead task, const std::string& config_path) {
  if (head.task != task)
    fail(config_path, ": the model has a ", task_name(head.task), " head, expected a ", task_name(task),
         " model (architectures ...For", task == TaskHead::kTokenClassification ? "Token" : "Sequence",
         "Classification)");
  TaskLabels out;
  out.task = task;
  std::vector<json> values;
  for (int64_t i = 0; i < head.num_labels; ++i)
    values.push_back(head.id2label.is_object() ? head.id2label.at(std::to_string(i)) : json("LABEL_" + std::to_string(i)));
  if (task == TaskHead::kTokenClassification) {
    for (const json& v : values) {
      out.tags.integer = v.is_number_integer();
      out.tags.names.push_back(python_str(v));
      out.tags.values.push_back(v);
    }
    const std::vector<std::string>& names = out.tags.names;
    for (size_t i = 0; i < names.size(); ++i) {
      int32_t to = static_cast<int32_t>(i);
      if (names[i].rfind("B-", 0) == 0) {
        const auto it = std::find(names.begin(), names.end(), "I-" + names[i].substr(2));
        if (it != names.end()) to = static_cast<int32_t>(it - names.begin());
      }
      out.tags.b_to_i.push_back(to);
    }
    return out;
  }
  if (head.regression) {
    out.labels.kind = LabelKind::kFloat;
    return out;
  }
  const json& first = values.front();
  out.labels.kind = first.is_boolean() ? LabelKind::kBool : first.is_number_integer() ? LabelKind::kInteger : LabelKind::kString;
  for (const json& v : values) {
    out.labels.names.push_back(python_str(v));
    out.labels.values.push_back(v);
  }
  return out;
}

TaskData load_task_data(const std::string& path, Split split, const TaskLabels& labels, const Tokenizer& tokenizer,
                        const TaskOptions& options, std::optional<int64_t> max_samples) {
  TaskData out;
  out.path = path;
  out.has_labels = split != Split::kTest;
  if (options.task == TaskHead::kTokenClassification) {
    const TokenFile file = read_token_file(path);
    std::vector<TaggedSentence> sentences =
        tagged_sentences(file, token_columns_of(file, options.token_columns, split), labels.tags, split);
    keep_first(sentences, max_samples);
    TokenFeatureOptions to;
    to.max_seq_length = options.max_seq_length;
    to.pad_to_max_length = options.pad_to_max_length;
    to.label_all_tokens = options.label_all_tokens;
    for (TokenFeature& t : build_token_features(sentences, labels.tags, tokenizer, to)) {
      Feature f;
      out.scored.push_back(scored_positions(t, options.label_all_tokens));
      f.input_ids = std::move(t.input_ids);
      f.token_type_ids = std::move(t.token_type_ids);
      f.attention_mask = std::move(t.attention_mask);
      f.token_labels = std::move(t.labels);
      out.features.push_back(std::move(f));
    }
    return out;
  }
  const Table table = read_table(path);
  const TextColumns columns = choose_text_columns(table);
  std::vector<TextExample> examples = text_examples(table, columns, labels.labels, split);
  keep_first(examples, max_samples);
  SequenceFeatureOptions so;
  so.max_seq_length = options.max_seq_length;
  so.pad_to_max_length = options.pad_to_max_length;
  for (SequenceFeature& s : build_sequence_features(examples, !columns.sentence2.empty(), tokenizer, so)) {
    Feature f;
    f.input_ids = std::move(s.input_ids);
    f.token_type_ids = std::move(s.token_type_ids);
    f.attention_mask = std::move(s.attention_mask);
    f.label = s.label;
    f.target = s.target;
    out.features.push_back(std::move(f));
  }
  return out;
}

}  // namespace cpuft
