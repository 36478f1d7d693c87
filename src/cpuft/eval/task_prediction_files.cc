#include "cpuft/eval/task_prediction_files.h"

#include <cmath>
#include <cstdio>


namespace cpuft {

std::string python_3_3f(float x) {
  if (std::isnan(x)) return "nan";  // Python prints no sign for a NaN; printf may print "-nan"
  char buf[64];
  std::snprintf(buf, sizeof buf, "%3.3f", static_cast<double>(x));  // glibc rounds exactly, as Python does
  return buf;
}

std::string glue_predict_results_text(const std::vector<std::string>& predicted_labels) {
  std::string out = "index\tprediction\n";
  for (size_t i = 0; i < predicted_labels.size(); ++i) out += std::to_string(i) + "\t" + predicted_labels[i] + "\n";
  return out;
}

std::string glue_predict_results_text(const std::vector<float>& predicted_values) {
  std::string out = "index\tprediction\n";
  for (size_t i = 0; i < predicted_values.size(); ++i)
    out += std::to_string(i) + "\t" + python_3_3f(predicted_values[i]) + "\n";
  return out;
}

std::string ner_predictions_text(const std::vector<std::vector<std::string>>& sentences) {
  std::string out;
  for (const std::vector<std::string>& s : sentences) {
    for (size_t i = 0; i < s.size(); ++i) out += (i ? " " : "") + s[i];
    out += "\n";
  }
  return out;
}

}  // namespace cpuft
