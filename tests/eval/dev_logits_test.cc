// Real dev features (first 300 questions, 384/128) with fixed pseudo-random logits, post-processed and
// scored: predictions.json byte for byte and the v1.1 metrics as utils_qa and the official script give
// them on HF's features (tests/fixtures/eval/dev_logits_case.json, tools/make_dev_logits_reference.py).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "cpuft/data/feature_builder.h"
#include "cpuft/data/squad_reader.h"
#include "cpuft/eval/postprocess.h"
#include "cpuft/eval/prediction_files.h"
#include "cpuft/eval/squad_metrics.h"
#include "cpuft/text/tokenizer.h"
#include "eval/fixture.h"
#include "common/shared_data.h"

namespace cpuft {
namespace {

// The generator's logit(feature, token, which): an integer hash scaled to a float32 with a 1/64 step.
float hashed_logit(uint32_t feature, uint32_t token, uint32_t which) {
  uint32_t x = feature * 2654435761u + token * 40503u + which * 97u + 12345u;
  x ^= x >> 15;
  x *= 2246822519u;
  x ^= x >> 13;
  return static_cast<float>(static_cast<int32_t>(x % 4001u) - 2000) / 64.0f;
}

TEST(DevLogits, PostprocessAndMetricsMatchTheReference) {
  CPUFT_SHARED_SQUAD_OR_SKIP(path, "dev-v1.1.json");
  const nlohmann::json expected = testing::load_eval_fixture("dev_logits_case.json");
  std::vector<Example> examples = read_squad(path).examples;
  examples.resize(expected["examples"].get<size_t>());
  const Tokenizer tok = Tokenizer::load(std::string(CPUFT_FIXTURES) + "/text");
  const int seq_len = expected["max_seq_length"].get<int>();
  const auto features = build_eval_features(examples, tok, {seq_len, expected["doc_stride"].get<int>(), true});
  ASSERT_EQ(features.size(), expected["features"].get<size_t>());

  std::vector<float> start, end;
  for (size_t i = 0; i < features.size(); ++i) {
    for (int j = 0; j < seq_len; ++j) {
      start.push_back(hashed_logit(static_cast<uint32_t>(i), static_cast<uint32_t>(j), 0));
      end.push_back(hashed_logit(static_cast<uint32_t>(i), static_cast<uint32_t>(j), 1));
    }
  }
  const QaLogits logits{start.data(), end.data(), static_cast<int64_t>(features.size()), seq_len};
  const auto predictions = postprocess_qa_predictions(examples, features, logits);
  EXPECT_EQ(predictions_json(predictions), expected["predictions_json"].get<std::string>());

  IdPredictions by_id;
  for (const ExamplePrediction& p : predictions) by_id.emplace_back(p.id, p.text);
  const SquadV1Scores scores = squad_v1_score(examples, by_id);
  EXPECT_EQ(scores.exact_match, expected["exact_match"].get<double>());
  EXPECT_EQ(scores.f1, expected["f1"].get<double>());
}

}  // namespace
}  // namespace cpuft
