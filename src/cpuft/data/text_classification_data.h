// run_glue.py's reading of its --train_file / --validation_file / --test_file (local files, no
// --task_name; docs/tasks.md, Data):
// - the label column is "label"; the text columns are sentence1 and sentence2 when both exist, else the
//   first two other columns, else the only other one (a single sentence);
// - the task is regression when the training labels are floats (pandas' float64 for CSV, any JSON
//   number with a fraction among the labels), else classification over the training labels sorted as
//   Python sorts them (strings by code point, integers by value, False before True), ids by position;
// - validation labels are read as the training labels' type and must be among them (run_glue stops
//   there with a KeyError: here it is one line naming the file, line and label); test labels are not
//   read (predictions need none).
// Refused with one line naming file, line, column and value: no label column, a label that is empty /
// NA / null / missing, labels of mixed JSON types, a non-finite regression label, an integer label out
// of int64 or equal to -1 (run_glue's "no label" mark, which it cannot train on), a text cell that is
// empty, NA or not a string (run_glue's tokenizer stops on those).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cpuft/data/table_file.h"

namespace cpuft {

enum class LabelKind { kString, kInteger, kBool, kFloat };

struct LabelSet {
  LabelKind kind = LabelKind::kString;
  // run_glue's label_list (empty for regression): each label as Python's str() prints it (what
  // predict_results.txt writes) and as the JSON value config.json's id2label holds.
  std::vector<std::string> names;
  std::vector<nlohmann::json> values;

  bool regression() const { return kind == LabelKind::kFloat; }
  int64_t num_labels() const { return regression() ? 1 : static_cast<int64_t>(names.size()); }
};

struct TextColumns {
  std::string sentence1;
  std::string sentence2;  // empty: single-sentence classification
};

struct TextExample {
  int64_t line = 0;    // of its file
  std::string text_a;
  std::string text_b;  // only with a sentence2 column
  int32_t label = -1;  // class id into LabelSet::names; -1 for test rows and regression
  float target = 0;    // regression label (float32, as the Trainer feeds it)
};

enum class Split { kTrain, kValidation, kTest };

// The text columns run_glue picks from the training table's columns.
TextColumns choose_text_columns(const Table& train);

// The label kind and sorted label list of the training table.
LabelSet read_label_set(const Table& train);

// The rows of `table` as examples with label ids (or regression targets) of `labels`.
std::vector<TextExample> text_examples(const Table& table, const TextColumns& columns, const LabelSet& labels,
                                       Split split);

// config.json's "label2id" and "id2label" as transformers writes them after run_glue sets them
// (LABEL_0 for regression): label2id keys are the labels as json.dumps writes dict keys.
nlohmann::json config_label2id(const LabelSet& labels);
nlohmann::json config_id2label(const LabelSet& labels);

}  // namespace cpuft
