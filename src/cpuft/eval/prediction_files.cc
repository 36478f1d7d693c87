#include "cpuft/eval/prediction_files.h"

#include "cpuft/util/atomic_file.h"
#include "cpuft/util/py_json.h"

namespace cpuft {

namespace {

// json.dumps(dict, indent=4) of a dict whose values are already rendered at nesting depth 1.
std::string dump_object(const std::vector<ExamplePrediction>& predictions,
                        std::string (*value)(const ExamplePrediction&)) {
  if (predictions.empty()) return "{}\n";
  std::string out = "{\n";
  for (size_t i = 0; i < predictions.size(); ++i) {
    out += "    " + py_json_string(predictions[i].id) + ": " + value(predictions[i]);
    out += i + 1 < predictions.size() ? ",\n" : "\n";
  }
  return out + "}\n";
}

std::string nbest_list(const ExamplePrediction& p) {
  if (p.nbest.empty()) return "[]";
  std::string out = "[\n";
  for (size_t i = 0; i < p.nbest.size(); ++i) {
    const NbestEntry& e = p.nbest[i];
    const std::string text = "            \"text\": " + py_json_string(e.text);
    const std::string start = "            \"start_logit\": " + py_float_repr(e.start_logit);
    const std::string end = "            \"end_logit\": " + py_float_repr(e.end_logit);
    out += "        {\n";
    out += e.is_dummy ? text + ",\n" + start + ",\n" + end + ",\n" : start + ",\n" + end + ",\n" + text + ",\n";
    out += "            \"probability\": " + py_float_repr(e.probability) + "\n";
    out += i + 1 < p.nbest.size() ? "        },\n" : "        }\n";
  }
  return out + "    ]";
}

}  // namespace

std::string predictions_json(const std::vector<ExamplePrediction>& predictions) {
  return dump_object(predictions, [](const ExamplePrediction& p) { return py_json_string(p.text); });
}

std::string nbest_json(const std::vector<ExamplePrediction>& predictions) {
  return dump_object(predictions, nbest_list);
}

std::string null_odds_json(const std::vector<ExamplePrediction>& predictions) {
  return dump_object(predictions, [](const ExamplePrediction& p) { return py_float_repr(p.null_score_diff); });
}

void write_prediction_files(const std::string& output_dir, const std::vector<ExamplePrediction>& predictions,
                            bool version_2_with_negative, const std::string& prefix) {
  const std::string base = output_dir + "/" + (prefix.empty() ? "" : prefix + "_");
  write_file_atomic(base + "predictions.json", predictions_json(predictions));
  write_file_atomic(base + "nbest_predictions.json", nbest_json(predictions));
  if (version_2_with_negative) write_file_atomic(base + "null_odds.json", null_odds_json(predictions));
}

}  // namespace cpuft
