#include "cpuft/eval/prediction_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "common/temp_dir.h"
#include "cpuft/util/error.h"
#include "cpuft/util/py_json.h"
#include "cpuft/util/read_file.h"
#include "eval/fixture.h"

namespace cpuft {
namespace {

// The files' floats and strings go through util's py_float_repr and py_json_string: checked here on the eval reference values.
TEST(PredictionFiles, FloatReprMatchesPython) {
  const auto cases = testing::load_eval_fixture("format_cases.json")["float_repr"];
  ASSERT_GT(cases.size(), 400u);
  for (const auto& c : cases) EXPECT_EQ(py_float_repr(c[0].get<double>()), c[1].get<std::string>());
}

TEST(PredictionFiles, JsonStringMatchesPython) {
  const auto cases = testing::load_eval_fixture("format_cases.json")["json_string"];
  ASSERT_GT(cases.size(), 5u);
  for (const auto& c : cases) EXPECT_EQ(py_json_string(c[0].get<std::string>()), c[1].get<std::string>());
}

ExamplePrediction sample(const std::string& id, const std::string& text) {
  ExamplePrediction p;
  p.id = id;
  p.text = text;
  p.null_score_diff = -1.5f;
  NbestEntry e;
  e.start_logit = 2.5f;
  e.end_logit = 0.1f;
  e.text = text;
  e.probability = 1.0;
  p.nbest.push_back(e);
  return p;
}

TEST(PredictionFiles, LayoutIsJsonDumpsIndent4) {
  const std::vector<ExamplePrediction> preds = {sample("b", "caf\xc3\xa9"), sample("a", "x")};
  EXPECT_EQ(predictions_json(preds), "{\n    \"b\": \"caf\\u00e9\",\n    \"a\": \"x\"\n}\n");
  EXPECT_EQ(null_odds_json(preds), "{\n    \"b\": -1.5,\n    \"a\": -1.5\n}\n");
  EXPECT_EQ(nbest_json({preds[1]}),
            "{\n    \"a\": [\n        {\n            \"start_logit\": 2.5,\n            \"end_logit\": "
            "0.10000000149011612,\n            \"text\": \"x\",\n            \"probability\": 1.0\n        }\n    ]\n}\n");
  EXPECT_EQ(predictions_json({}), "{}\n");
}

TEST(PredictionFiles, WritesFilesAndFailsOnMissingDirectory) {
  const cpuft_test::TempDir tmp("cpuft-eval");
  const std::string& dir = tmp.path();
  const std::vector<ExamplePrediction> preds = {sample("q", "answer")};
  write_prediction_files(dir, preds, true);
  EXPECT_EQ(read_file(dir + "/eval_predictions.json"), predictions_json(preds));
  EXPECT_EQ(read_file(dir + "/eval_nbest_predictions.json"), nbest_json(preds));
  EXPECT_EQ(read_file(dir + "/eval_null_odds.json"), null_odds_json(preds));
  write_prediction_files(dir, preds, false, "");
  EXPECT_EQ(read_file(dir + "/predictions.json"), predictions_json(preds));
  EXPECT_THROW(read_file(dir + "/null_odds.json"), Error);
  EXPECT_THROW(write_prediction_files(dir + "/missing/sub", preds, false), Error);
}

}  // namespace
}  // namespace cpuft
