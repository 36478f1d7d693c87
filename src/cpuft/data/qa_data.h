// SQuAD files -> examples and features for training and evaluation, with run_qa.py's sample caps:
// --max_*_samples keeps the first N examples before featurising and then the first N features
// (run_qa selects on the examples and again on the tokenised dataset).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cpuft/data/features.h"
#include "cpuft/text/tokenizer.h"

namespace cpuft {

struct QaData {
  std::string path;
  int version = 1;  // 1: SQuAD v1.1, 2: v2.0 (impossible questions present)
  std::vector<Example> examples;
  std::vector<Feature> features;
};

// Training features (labels) of `path`.
QaData load_train_data(const std::string& path, const Tokenizer& tokenizer, const FeatureOptions& options,
                       std::optional<int64_t> max_samples);

// Evaluation features (example index and context offsets) of `path`.
QaData load_eval_data(const std::string& path, const Tokenizer& tokenizer, const FeatureOptions& options,
                      std::optional<int64_t> max_samples);

// Features of d.examples (train: with labels, else with offsets) into d.features; errors of one
// example name d.path ("dev.json: example 'x': ...").
void build_features_of(QaData& d, const Tokenizer& tokenizer, const FeatureOptions& options, bool train);

// A warning when `d` has unanswerable questions (SQuAD v2.0) and --version_2_with_negative is not set:
// every answer would then be scored as v1.1.
void warn_if_v2_without_flag(const QaData& d, bool version_2_with_negative);

}  // namespace cpuft
