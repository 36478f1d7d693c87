// The official SQuAD metrics as run_qa computes them through `evaluate` (docs/parity.md, Metrics):
// v1.1 (exact_match, f1) and v2.0 (exact, f1, HasAns_*, NoAns_*, best_*), percentages as doubles,
// summed in the same order as the Python scripts so the totals agree to the last bit.
//
// normalize_answer follows Python: str.lower() (full Unicode lowercasing via utf8proc, plus the
// special cases utf8proc lacks: U+0130 -> "i\u0307" and the final-sigma rule), removal of the 32
// ASCII string.punctuation characters, the regex \b(a|an|the)\b (word characters: Unicode letters,
// numbers and '_'), then whitespace split/join on Python's str.isspace() characters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cpuft/data/features.h"
#include "cpuft/eval/postprocess.h"

namespace cpuft {

// (question id, predicted answer text), in the order the predictions were made.
using IdPredictions = std::vector<std::pair<std::string, std::string>>;

// Throws cpuft::Error on invalid UTF-8.
std::string normalize_answer(std::string_view s);

// v1.1 evaluate-v1.1.py scores of one (prediction, gold) pair: 0 or 1, and F1 in [0, 1].
double exact_match_score(std::string_view prediction, std::string_view gold);
double f1_score(std::string_view prediction, std::string_view gold);

// v2.0 evaluate-v2.0.py scores: an empty token list matches only an empty one.
double compute_exact_v2(std::string_view gold, std::string_view prediction);
double compute_f1_v2(std::string_view gold, std::string_view prediction);

struct SquadV1Scores {
  double exact_match = 0.0;  // percent
  double f1 = 0.0;           // percent
  int64_t total = 0;         // questions in the references
  int64_t missing = 0;       // questions without a prediction (scored 0, as the official script)
};

// Throws cpuft::Error when a reference question has no answer (the v1.1 script cannot score it).
SquadV1Scores squad_v1_score(const std::vector<Example>& references, const IdPredictions& predictions);

struct SquadV2Scores {
  double exact = 0.0, f1 = 0.0;
  int64_t total = 0;
  bool has_has_ans = false;  // HasAns_* exist only when some question has an answer
  double has_ans_exact = 0.0, has_ans_f1 = 0.0;
  int64_t has_ans_total = 0;
  bool has_no_ans = false;   // NoAns_* exist only when some question has none
  double no_ans_exact = 0.0, no_ans_f1 = 0.0;
  int64_t no_ans_total = 0;
  double best_exact = 0.0, best_exact_thresh = 0.0, best_f1 = 0.0, best_f1_thresh = 0.0;
};

// run_qa's no-answer probabilities are all 0.0 (threshold 1.0), so best_* follow prediction order
// and both thresholds are 0.0. Throws cpuft::Error when a reference question has no prediction
// (the Python metric fails with a KeyError there).
SquadV2Scores squad_v2_score(const std::vector<Example>& references, const IdPredictions& predictions);

// The (id, text) pairs of post-processed predictions, in example order.
IdPredictions id_predictions(const std::vector<ExamplePrediction>& predictions);

}  // namespace cpuft
