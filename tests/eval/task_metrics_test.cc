// The classification metrics and prediction files against scikit-learn, SciPy and seqeval
// (tests/fixtures/eval/task_metric_cases.json, written by tools/make_task_eval_reference.py).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cpuft/eval/classification_metrics.h"
#include "cpuft/eval/seqeval_metrics.h"
#include "cpuft/eval/task_prediction_files.h"
#include "cpuft/util/error.h"
#include "eval/fixture.h"

namespace cpuft {
namespace {

using nlohmann::json;
using testing::load_eval_fixture;

const json& cases() {
  static const json j = load_eval_fixture("task_metric_cases.json");
  return j;
}

double value_of(const std::vector<NamedMetric>& m, const std::string& name) {
  for (const NamedMetric& x : m)
    if (x.name == name) return x.value;
  ADD_FAILURE() << "no metric " << name;
  return 0;
}

// A JSON number, or null for NaN.
void expect_near_or_nan(double got, const json& want, double rel, const std::string& what) {
  if (want.is_null()) {
    EXPECT_TRUE(std::isnan(got)) << what << " " << got;
    return;
  }
  const double w = want.get<double>();
  EXPECT_NEAR(got, w, rel * std::max(1.0, std::abs(w))) << what;
}

TEST(ClassificationMetrics, AccuracyAndBinaryF1AsSklearn) {
  for (const json& c : cases()["classification"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const auto p = c["predictions"].get<std::vector<int32_t>>();
    const auto r = c["references"].get<std::vector<int32_t>>();
    EXPECT_EQ(accuracy(p, r), c["accuracy"].get<double>());
    EXPECT_EQ(value_of(glue_metrics(GlueMetric::kAccuracy, p, r), "accuracy"), c["accuracy"].get<double>());
    if (!c.contains("f1")) continue;
    EXPECT_EQ(binary_f1(p, r), c["f1"].get<double>());
    const std::vector<NamedMetric> mrpc = glue_metrics(GlueMetric::kAccuracyF1, p, r);
    ASSERT_EQ(mrpc.size(), 3u);
    for (const NamedMetric& m : mrpc) EXPECT_EQ(m.value, c["mrpc"][m.name].get<double>()) << m.name;
  }
}

TEST(ClassificationMetrics, RegressionMetricsAsSklearnAndScipy) {
  for (const json& c : cases()["regression"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const auto p = c["predictions"].get<std::vector<float>>();
    const auto r = c["references"].get<std::vector<float>>();
    // The Python values are computed on float32 arrays; ours in double: agreement to float32 rounding.
    expect_near_or_nan(mean_squared_error(p, r), c["mse"], 1e-6, "mse");
    expect_near_or_nan(pearson_r(p, r), c["pearson"], 1e-6, "pearson");
    expect_near_or_nan(spearman_rho(p, r), c["spearmanr"], 1e-6, "spearmanr");
    // In float64, SciPy and cpuft agree to the last bits.
    expect_near_or_nan(pearson_r(p, r), c["pearson_f64"], 1e-13, "pearson (f64)");
    expect_near_or_nan(spearman_rho(p, r), c["spearmanr_f64"], 1e-13, "spearmanr (f64)");
    EXPECT_EQ(average_ranks(p), c["ranks"].get<std::vector<double>>());
    const std::vector<NamedMetric> stsb = glue_metrics(GlueMetric::kPearsonSpearman, p, r);
    expect_near_or_nan(value_of(stsb, "combined_score"), c["combined_score"], 1e-6, "combined_score");
    EXPECT_EQ(glue_metrics(GlueMetric::kMse, p, r).at(0).name, "mse");
  }
}

TEST(ClassificationMetrics, ArgmaxAsNumpy) {
  const json& a = cases()["argmax"];
  std::vector<float> logits;
  for (const json& row : a["logits"])
    for (const json& v : row) logits.push_back(v.is_null() ? std::numeric_limits<float>::quiet_NaN() : v.get<float>());
  const auto rows = static_cast<int64_t>(a["logits"].size());
  EXPECT_EQ(argmax_rows(logits.data(), rows, static_cast<int64_t>(logits.size()) / rows),
            a["argmax"].get<std::vector<int32_t>>());
}

TEST(ClassificationMetrics, NamesAndBadInputs) {
  const std::vector<NamedMetric> m = prefixed(glue_metrics(GlueMetric::kAccuracyF1, std::vector<int32_t>{1, 0}, std::vector<int32_t>{1, 1}), "eval");
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].name, "eval_accuracy");
  EXPECT_EQ(m[1].name, "eval_f1");
  EXPECT_EQ(m[2].name, "eval_combined_score");
  EXPECT_THROW(accuracy({1}, {1, 0}), Error);
  EXPECT_THROW(accuracy({}, {}), Error);
  EXPECT_THROW(glue_metrics(GlueMetric::kMse, std::vector<int32_t>{1}, std::vector<int32_t>{1}), Error);
}

std::vector<std::vector<std::string>> sentences(const json& j) { return j.get<std::vector<std::vector<std::string>>>(); }

TEST(SeqevalMetrics, EntitiesAndScoresAsSeqeval) {
  for (const json& c : cases()["seqeval"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const auto pred = sentences(c["predictions"]);
    const auto ref = sentences(c["references"]);
    for (const auto& [side, seq] : {std::pair{"entities_predictions", pred}, std::pair{"entities_references", ref}}) {
      std::vector<Entity> want;
      for (const json& e : c[side]) want.push_back({e[0].get<std::string>(), e[1].get<int64_t>(), e[2].get<int64_t>()});
      EXPECT_EQ(get_entities(seq), want) << side;
    }
    const SeqevalScores s = seqeval_scores(pred, ref);
    const json& want = c["scores"];
    EXPECT_EQ(s.overall_precision, want["overall_precision"].get<double>());
    EXPECT_EQ(s.overall_recall, want["overall_recall"].get<double>());
    EXPECT_EQ(s.overall_f1, want["overall_f1"].get<double>());
    EXPECT_EQ(s.overall_accuracy, want["overall_accuracy"].get<double>());
    size_t types = 0;
    for (const auto& [key, v] : want.items()) types += v.is_object();
    ASSERT_EQ(s.types.size(), types);
    for (const EntityScores& e : s.types) {
      SCOPED_TRACE(e.type);
      ASSERT_TRUE(want.contains(e.type));
      EXPECT_EQ(e.precision, want[e.type]["precision"].get<double>());
      EXPECT_EQ(e.recall, want[e.type]["recall"].get<double>());
      EXPECT_EQ(e.f1, want[e.type]["f1"].get<double>());
      EXPECT_EQ(e.number, want[e.type]["number"].get<int64_t>());
    }
    const std::vector<NamedMetric> plain = run_ner_metrics(s, false);
    ASSERT_EQ(plain.size(), 4u);
    for (const NamedMetric& m : plain) EXPECT_EQ(m.value, c["run_ner"][m.name].get<double>()) << m.name;
    const std::vector<NamedMetric> entity = run_ner_metrics(s, true);
    ASSERT_EQ(entity.size(), c["run_ner_entity_level"].size());
    for (size_t i = 0; i < entity.size(); ++i) {
      EXPECT_EQ(entity[i].name, c["run_ner_entity_level"][i][0].get<std::string>());
      EXPECT_EQ(entity[i].value, c["run_ner_entity_level"][i][1].get<double>());
    }
  }
}

TEST(SeqevalMetrics, BadInputsAreErrors) {
  EXPECT_THROW(seqeval_scores({{"O"}}, {{"O", "O"}}), Error);
  EXPECT_THROW(seqeval_scores({{"O"}}, {}), Error);
  EXPECT_THROW(seqeval_scores({{}}, {{}}), Error);
  EXPECT_THROW(seqeval_scores({{""}}, {{"O"}}), Error);
}

TEST(TaskPredictionFiles, TextsAsRunGlueAndRunNerWriteThem) {
  const json& f = cases()["predict_files"];
  EXPECT_EQ(glue_predict_results_text(f["labels"].get<std::vector<std::string>>()), f["labels_text"].get<std::string>());
  std::vector<float> values;
  for (const json& v : f["values"])
    values.push_back(v.is_string() ? std::stof(v.get<std::string>()) : v.get<float>());
  EXPECT_EQ(glue_predict_results_text(values), f["values_text"].get<std::string>());
  EXPECT_EQ(python_3_3f(-std::numeric_limits<float>::quiet_NaN()), "nan");
  EXPECT_EQ(ner_predictions_text(sentences(f["ner_sentences"])), f["ner_text"].get<std::string>());
  EXPECT_STREQ(kGluePredictResultsFile, "predict_results_None.txt");
  EXPECT_STREQ(kNerPredictionsFile, "predictions.txt");
}

}  // namespace
}  // namespace cpuft
