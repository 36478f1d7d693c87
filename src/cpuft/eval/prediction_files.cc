#include "cpuft/eval/prediction_files.h"

#include "cpuft/util/atomic_file.h"
#include "cpuft/util/py_json.h"

namespace cpuft {

namespace {

// json.dumps(dict, indent=4) of a dict whose values are already rendered at nesting depth 1, written
// piece by piece into `out` (a string, or a file: the n-best file of the full dev set is 50 MB).
template <typename Out>
void dump_object(Out& out, const std::vector<ExamplePrediction>& predictions,
                 std::string (*value)(const ExamplePrediction&)) {
  if (predictions.empty()) {
    out.append("{}\n");
    return;
  }
  out.append("{\n");
  for (size_t i = 0; i < predictions.size(); ++i) {
    out.append("    " + py_json_string(predictions[i].id) + ": " + value(predictions[i]) +
               (i + 1 < predictions.size() ? ",\n" : "\n"));
  }
  out.append("}\n");
}

std::string dump_object(const std::vector<ExamplePrediction>& predictions,
                        std::string (*value)(const ExamplePrediction&)) {
  std::string out;
  dump_object(out, predictions, value);
  return out;
}

void write_object(const std::string& path, const std::vector<ExamplePrediction>& predictions,
                  std::string (*value)(const ExamplePrediction&)) {
  AtomicFile file(path);
  dump_object(file, predictions, value);
  file.commit();
}

std::string answer_text(const ExamplePrediction& p) { return py_json_string(p.text); }
std::string null_odds(const ExamplePrediction& p) { return py_float_repr(p.null_score_diff); }

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
  return dump_object(predictions, answer_text);
}

std::string nbest_json(const std::vector<ExamplePrediction>& predictions) {
  return dump_object(predictions, nbest_list);
}

std::string null_odds_json(const std::vector<ExamplePrediction>& predictions) {
  return dump_object(predictions, null_odds);
}

void write_prediction_files(const std::string& output_dir, const std::vector<ExamplePrediction>& predictions,
                            bool version_2_with_negative, const std::string& prefix) {
  const std::string base = output_dir + "/" + (prefix.empty() ? "" : prefix + "_");
  write_object(base + "predictions.json", predictions, answer_text);
  write_object(base + "nbest_predictions.json", predictions, nbest_list);
  if (version_2_with_negative) write_object(base + "null_odds.json", predictions, null_odds);
}

}  // namespace cpuft
