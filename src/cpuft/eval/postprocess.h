// Answer extraction from start/end logits, as utils_qa.postprocess_qa_predictions
// (docs/parity.md, Post-processing).
//
// Top-n order: for each feature the n_best_size largest start (and end) logits, in descending
// value; among EQUAL logits the larger token index comes first. This is numpy's
// argsort(kind="stable")[::-1]; numpy's default argsort leaves the order of ties to the sort
// implementation (introsort or SIMD sorts depending on the build and CPU), so cpuft fixes this rule.
// It matters with bf16 logits, where ties are common. The candidate sort by score is stable, as in
// Python. Scores are float32 sums; n-best probabilities are the float32 softmax numpy computes
// (numpy's SIMD float32 exp and pairwise sum, as on x86 machines with AVX2; float64 when the
// "empty" dummy is present).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpuft/data/features.h"

namespace cpuft {

struct PostprocessOptions {
  int n_best_size = 20;
  int max_answer_length = 30;
  bool version_2_with_negative = false;
  double null_score_diff_threshold = 0.0;
};

// start/end logits of all features, row-major [num_features][seq_len], float32.
struct QaLogits {
  const float* start = nullptr;
  const float* end = nullptr;
  int64_t num_features = 0;
  int64_t seq_len = 0;
};

struct NbestEntry {
  float start_logit = 0.0f;
  float end_logit = 0.0f;
  std::string text;
  double probability = 0.0;  // the float32 (or float64, see above) softmax value
  float score = 0.0f;        // start_logit + end_logit (float32), not written to nbest files
  bool is_dummy = false;     // the {"text": "empty"} placeholder: keys in another order in files
  int64_t start_char = -1;   // the answer's code-point span [start_char, end_char) in the context
  int64_t end_char = -1;     // (-1 for the null answer and the placeholder; not written to files)
};

struct ExamplePrediction {
  std::string id;
  std::string text;               // the answer ("" for a v2 null answer)
  std::vector<NbestEntry> nbest;  // best first, at most n_best_size (+1 null / dummy)
  float null_score_diff = 0.0f;   // v2 only: null score - best non-null start - end logits
};

// One prediction per example, in example order. features[i].example_index names the example of
// feature i; features[i].offsets gives its context spans (code points), (-1,-1) outside the context.
// Throws cpuft::Error when the logits do not match the features or an example_index is out of range.
std::vector<ExamplePrediction> postprocess_qa_predictions(const std::vector<Example>& examples,
                                                          const std::vector<Feature>& features,
                                                          const QaLogits& logits,
                                                          const PostprocessOptions& options = {});

// numpy's float32 exp as x86 builds with AVX2 or AVX-512F compute it (a rational approximation that
// is not always correctly rounded), so that n-best probabilities match utils_qa to the bit.
float numpy_expf(float x);

// Indices of the k largest values of v[0..n) in the order described above.
std::vector<int> top_k_indices(const float* v, int n, int k);

}  // namespace cpuft
