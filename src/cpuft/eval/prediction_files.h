// The prediction files utils_qa.postprocess_qa_predictions writes (docs/parity.md, Post-processing),
// byte for byte as Python's json.dumps(obj, indent=4) + "\n": keys in insertion order, ": " and ","
// separators, ensure_ascii escapes (util/py_json.h py_json_string), floats as Python's repr
// (py_float_repr), and the n-best values as the float32 numbers
// widened to double, as float(np.float32) gives.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cpuft/eval/postprocess.h"

namespace cpuft {

// {id: answer text}
std::string predictions_json(const std::vector<ExamplePrediction>& predictions);
// {id: [{start_logit, end_logit, text, probability}, ...]} (the "empty" placeholder lists text first)
std::string nbest_json(const std::vector<ExamplePrediction>& predictions);
// {id: null_score_diff} (SQuAD v2)
std::string null_odds_json(const std::vector<ExamplePrediction>& predictions);

// Writes <dir>/<prefix>_predictions.json, <prefix>_nbest_predictions.json and, for v2,
// <prefix>_null_odds.json (no "<prefix>_" when prefix is empty), each atomically.
void write_prediction_files(const std::string& output_dir, const std::vector<ExamplePrediction>& predictions,
                            bool version_2_with_negative, const std::string& prefix = "eval");

}  // namespace cpuft
