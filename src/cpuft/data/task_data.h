// The classification jobs' data as the engine's features (docs/tasks.md): run_glue's and run_ner's
// reading of --train_file / --validation_file / --test_file (data/text_classification_data.h,
// data/token_classification_data.h), tokenised as the scripts do (data/sequence_features.h,
// data/token_features.h), into Features carrying their labels (data/features.h), which the training
// loop, the sampler and the batches take as they take QA windows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cpuft/data/features.h"
#include "cpuft/data/text_classification_data.h"
#include "cpuft/data/token_classification_data.h"
#include "cpuft/io/hf_config.h"
#include "cpuft/text/tokenizer.h"

namespace cpuft {

struct TaskOptions {
  TaskHead task = TaskHead::kSequenceClassification;
  int max_seq_length = 128;
  bool pad_to_max_length = true;
  bool label_all_tokens = false;   // run_ner's --label_all_tokens
  TokenColumnFlags token_columns;  // run_ner's --text_column_name, --label_column_name, --task_name
};

// The label list of a run: the training file's (run_glue's sorted label_list, run_ner's sorted tags), or,
// to evaluate or predict with a fine-tuned model, its config.json's id2label.
struct TaskLabels {
  TaskHead task = TaskHead::kSequenceClassification;
  LabelSet labels;  // text classification
  TagSet tags;      // token classification
  // The name of each label id (what the prediction files and seqeval read).
  const std::vector<std::string>& names() const { return task == TaskHead::kTokenClassification ? tags.names : labels.names; }
  bool regression() const { return task == TaskHead::kSequenceClassification && labels.regression(); }
  // The head these labels make: num_labels, problem_type, id2label and label2id as the scripts set them.
  HeadSpec head() const;
};

TaskLabels labels_of_training_file(const std::string& path, const TaskOptions& options);
// From a fine-tuned model's head (id2label, problem_type); `config_path` names it in errors.
TaskLabels labels_of_model(const HeadSpec& head, TaskHead task, const std::string& config_path);

struct TaskData {
  std::string path;
  std::vector<Feature> features;  // one per row / sentence, in file order
  // Token classification: per feature, whether its prediction at each position is scored and
  // written (data/token_features.h, scored_positions).
  std::vector<std::vector<uint8_t>> scored;
  bool has_labels = false;  // training and validation files; test files are read without labels
};

// The first max_samples rows of `path` (all when unset) as features of `labels`; Split::kTest reads no
// labels.
TaskData load_task_data(const std::string& path, Split split, const TaskLabels& labels, const Tokenizer& tokenizer,
                        const TaskOptions& options, std::optional<int64_t> max_samples);

}  // namespace cpuft
