// The prediction files of the classification jobs, byte for byte as the example scripts write them
// (docs/tasks.md, Files):
// - run_glue.py's predict_results_<task>.txt (predict_results_None.txt for --train_file runs): the
//   header "index\tprediction", then one "i\tLABEL" line per test example with the label's name, or,
//   for regression, the float32 prediction as Python's f"{x:3.3f}";
// - run_ner.py's predictions.txt: per test sentence, the predicted tags of its scored positions joined by
//   spaces, one sentence per line.
// The caller writes them with write_file_atomic (util/atomic_file.h).
#pragma once

#include <string>
#include <vector>

namespace cpuft {

// The name run_glue gives the file: f"predict_results_{task}.txt" with task None for local files.
constexpr const char* kGluePredictResultsFile = "predict_results_None.txt";
constexpr const char* kNerPredictionsFile = "predictions.txt";

std::string glue_predict_results_text(const std::vector<std::string>& predicted_labels);
std::string glue_predict_results_text(const std::vector<float>& predicted_values);

// Python's f"{x:3.3f}" of a float32 value: correctly rounded, "nan", "inf", "-inf", "-0.000".
std::string python_3_3f(float x);

std::string ner_predictions_text(const std::vector<std::vector<std::string>>& sentences);

}  // namespace cpuft
