// SQuAD examples -> model features, exactly as run_qa.py's prepare_train_features and
// prepare_validation_features on top of the fast tokenizer (docs/parity.md, Features):
// question lstripped, [CLS] question [SEP] context [SEP], truncation only_second to max_seq_length with
// doc_stride overlapping windows, right padding. Features come out in example order, windows in order.
#pragma once

#include <vector>

#include "cpuft/data/features.h"
#include "cpuft/text/tokenizer.h"

namespace cpuft {

// Training features with start/end labels (the [CLS] index 0 when the first answer is not wholly inside
// the window). offsets are left empty.
std::vector<Feature> build_train_features(const std::vector<Example>& examples, const Tokenizer& tokenizer,
                                          const FeatureOptions& options);

// Evaluation features: example_index and per-token context offsets ((-1,-1) outside the context); no labels.
std::vector<Feature> build_eval_features(const std::vector<Example>& examples, const Tokenizer& tokenizer,
                                         const FeatureOptions& options);

}  // namespace cpuft
