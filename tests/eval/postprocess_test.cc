#include "cpuft/eval/postprocess.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "cpuft/eval/prediction_files.h"
#include "cpuft/util/error.h"
#include "eval/fixture.h"

namespace cpuft {
namespace {

std::vector<float> parse_floats(const std::string& text) {
  std::vector<float> out;
  const char* p = text.c_str();
  char* end = nullptr;
  for (float v = std::strtof(p, &end); end != p; v = std::strtof(p, &end)) {
    out.push_back(v);
    p = end;
  }
  return out;
}

struct Case {
  std::vector<Example> examples;
  std::vector<Feature> features;
  std::vector<float> start, end;
  PostprocessOptions options;
  int64_t seq_len = 0;
  QaLogits logits() const { return {start.data(), end.data(), static_cast<int64_t>(features.size()), seq_len}; }
};

Case load_case(const nlohmann::json& c) {
  Case k;
  k.seq_len = c["seq_len"].get<int64_t>();
  k.options.version_2_with_negative = c["version_2"].get<bool>();
  k.options.n_best_size = c["n_best_size"].get<int>();
  k.options.max_answer_length = c["max_answer_length"].get<int>();
  for (const auto& e : c["examples"]) {
    Example ex;
    ex.id = e["id"].get<std::string>();
    ex.context = e["context"].get<std::string>();
    k.examples.push_back(ex);
  }
  for (const auto& f : c["features"]) {
    Feature feat;
    feat.example_index = f["example_index"].get<int32_t>();
    for (const auto& o : f["offset_mapping"]) {
      feat.offsets.push_back(o.is_null() ? Span{} : Span{o[0].get<int64_t>(), o[1].get<int64_t>()});
    }
    const auto s = parse_floats(f["start_logits"].get<std::string>());
    const auto e = parse_floats(f["end_logits"].get<std::string>());
    EXPECT_EQ(static_cast<int64_t>(s.size()), k.seq_len);
    k.start.insert(k.start.end(), s.begin(), s.end());
    k.end.insert(k.end.end(), e.begin(), e.end());
    k.features.push_back(std::move(feat));
  }
  return k;
}

TEST(Postprocess, MatchesUtilsQaReference) {
  const auto cases = testing::load_eval_fixture("postprocess_cases.json");
  ASSERT_EQ(cases.size(), 6u);
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Case k = load_case(cases[i]);
    const auto preds = postprocess_qa_predictions(k.examples, k.features, k.logits(), k.options);
    const auto& want = cases[i]["expected"];
    EXPECT_EQ(predictions_json(preds), want["predictions"].get<std::string>());
    if (k.options.version_2_with_negative) {
      EXPECT_EQ(null_odds_json(preds), want["null_odds"].get<std::string>());
    }
    // Byte for byte, probabilities included (numpy's float32 exp and pairwise sum are reproduced).
    EXPECT_EQ(nbest_json(preds), want["nbest"].get<std::string>());
  }
}

TEST(Postprocess, NumpyExpMatchesReference) {
  const auto cases = testing::load_eval_fixture("format_cases.json")["numpy_expf"];
  ASSERT_GT(cases.size(), 1000u);
  for (const auto& c : cases) {
    const float x = std::strtof(c[0].get<std::string>().c_str(), nullptr);
    const float want = std::strtof(c[1].get<std::string>().c_str(), nullptr);
    EXPECT_EQ(numpy_expf(x), want) << c[0].get<std::string>();
  }
}

TEST(Postprocess, TopKOrdersTiesByLargerIndexFirst) {
  const float v[] = {1.0f, 3.0f, 2.0f, 3.0f, 1.0f, 3.0f};
  EXPECT_EQ(top_k_indices(v, 6, 4), (std::vector<int>{5, 3, 1, 2}));
  EXPECT_EQ(top_k_indices(v, 6, 10), (std::vector<int>{5, 3, 1, 2, 4, 0}));
}

TEST(Postprocess, EmptyPlaceholderWhenNoCandidate) {
  Example ex;
  ex.id = "q";
  ex.context = "abc";
  Feature f;
  f.example_index = 0;
  f.offsets = {Span{}, Span{0, 3}};
  const std::vector<float> start = {5.0f, 1.0f}, end = {5.0f, -1.0f};
  PostprocessOptions opt;
  opt.max_answer_length = 0;  // forbids every span
  const auto p = postprocess_qa_predictions({ex}, {f}, {start.data(), end.data(), 1, 2}, opt);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].text, "empty");
  ASSERT_EQ(p[0].nbest.size(), 1u);
  EXPECT_TRUE(p[0].nbest[0].is_dummy);
  EXPECT_EQ(p[0].nbest[0].probability, 1.0);
}

TEST(Postprocess, BadInputsThrow) {
  Example ex;
  ex.id = "q";
  ex.context = "abc";
  Feature f;
  f.example_index = 3;  // no such example
  f.offsets = {Span{0, 1}};
  const std::vector<float> logits = {0.0f};
  EXPECT_THROW(postprocess_qa_predictions({ex}, {f}, {logits.data(), logits.data(), 1, 1}), Error);
  f.example_index = 0;
  EXPECT_THROW(postprocess_qa_predictions({ex}, {f}, {logits.data(), logits.data(), 2, 1}), Error);
  EXPECT_THROW(postprocess_qa_predictions({ex}, {f}, {nullptr, nullptr, 1, 1}), Error);
  PostprocessOptions v2;
  v2.version_2_with_negative = true;
  EXPECT_THROW(postprocess_qa_predictions({ex}, {}, {logits.data(), logits.data(), 0, 1}, v2), Error);
}

}  // namespace
}  // namespace cpuft
