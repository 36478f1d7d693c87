// Train and eval features against run_qa.py's preprocessing on the fast tokenizer
// (tests/fixtures/text/squad_examples.json, tests/fixtures/data/feature_counts.json; tools/make_text_reference.py).
#include "cpuft/data/feature_builder.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cpuft/util/error.h"
#include "text/text_fixtures.h"
#include "common/shared_data.h"

namespace cpuft {
namespace {

using nlohmann::json;
using testing::read_json_fixture;

// The data module's own fixtures (tests/fixtures/data/); the tokenizer and squad_examples.json are the text ones.
json read_data_fixture(const std::string& name) {
  return json::parse(read_file(std::string(CPUFT_FIXTURES) + "/data/" + name));
}

struct Sample {
  std::vector<Example> examples;
  json fixture;
};

Sample load_sample(const json& set) {
  Sample s;
  s.fixture = set;
  for (const json& e : set["examples"]) {
    Example ex;
    ex.id = e["id"].get<std::string>();
    ex.question = e["question"].get<std::string>();
    ex.context = set["contexts"][e["context_index"].get<size_t>()]["text"].get<std::string>();
    const auto starts = e["answer_starts"].get<std::vector<int64_t>>();
    const auto texts = e["answer_texts"].get<std::vector<std::string>>();
    for (size_t k = 0; k < starts.size(); ++k) ex.answers.push_back({texts[k], starts[k]});
    s.examples.push_back(std::move(ex));
  }
  return s;
}

// The expected feature of a fixture row [example, context_begin, context_end, start, end]:
// [CLS] question [SEP] context[begin:end] [SEP] padded, as the generator asserted against HF.
Feature expected_feature(const Sample& s, const json& row, int max_len, bool train) {
  const size_t ex = row[0].get<size_t>();
  const size_t begin = row[1].get<size_t>();
  const size_t end = row[2].get<size_t>();
  const json& e = s.fixture["examples"][ex];
  const json& c = s.fixture["contexts"][e["context_index"].get<size_t>()];
  const auto q_ids = e["question_ids"].get<std::vector<int32_t>>();
  const auto c_ids = c["ids"].get<std::vector<int32_t>>();
  const auto c_off = c["offsets"].get<std::vector<int64_t>>();
  Feature f;
  f.example_index = static_cast<int32_t>(ex);
  f.input_ids = {101};
  f.input_ids.insert(f.input_ids.end(), q_ids.begin(), q_ids.end());
  f.input_ids.push_back(102);
  f.input_ids.insert(f.input_ids.end(), c_ids.begin() + begin, c_ids.begin() + end);
  f.input_ids.push_back(102);
  const size_t length = f.input_ids.size();
  f.input_ids.resize(max_len, 0);
  f.token_type_ids.assign(max_len, 0);
  f.attention_mask.assign(max_len, 0);
  for (size_t k = 0; k < length; ++k) f.attention_mask[k] = 1;
  for (size_t k = q_ids.size() + 2; k < length; ++k) f.token_type_ids[k] = 1;
  if (train) {
    f.start_position = row[3].get<int32_t>();
    f.end_position = row[4].get<int32_t>();
  } else {
    f.offsets.assign(max_len, Span{-1, -1});
    for (size_t k = begin; k < end; ++k) f.offsets[q_ids.size() + 2 + k - begin] = {c_off[2 * k], c_off[2 * k + 1]};
  }
  return f;
}

// Number of features differing from the fixture in any field.
int compare_features(const Sample& s, const std::vector<Feature>& got, const json& rows, int max_len, bool train,
                     const std::string& what) {
  EXPECT_EQ(got.size(), rows.size()) << what;
  int mismatches = 0;
  for (size_t i = 0; i < std::min(got.size(), rows.size()); ++i) {
    const Feature want = expected_feature(s, rows[i], max_len, train);
    const Feature& f = got[i];
    bool same = f.input_ids == want.input_ids && f.token_type_ids == want.token_type_ids &&
                f.attention_mask == want.attention_mask && f.example_index == want.example_index &&
                f.start_position == want.start_position && f.end_position == want.end_position &&
                f.offsets.size() == want.offsets.size();
    for (size_t k = 0; same && k < f.offsets.size(); ++k) {
      same = f.offsets[k].begin == want.offsets[k].begin && f.offsets[k].end == want.offsets[k].end;
    }
    EXPECT_TRUE(same) << what << " feature " << i << " (row " << rows[i].dump() << ", got start " << f.start_position
                      << " end " << f.end_position << ")";
    mismatches += same ? 0 : 1;
  }
  return mismatches;
}

TEST(FeatureBuilder, MatchesRunQaOnSampledSquad) {
  const Tokenizer tok = Tokenizer::load(testing::text_fixture(""));
  const json sets = read_json_fixture("squad_examples.json");
  int compared = 0;
  int mismatches = 0;
  for (const auto& [split, set] : sets.items()) {
    const Sample s = load_sample(set);
    for (const auto& [max_len, stride] : {std::pair{384, 128}, std::pair{128, 32}}) {
      const FeatureOptions options{max_len, stride, true};
      const json& rows = set["features_" + std::to_string(max_len) + "_" + std::to_string(stride)];
      const std::string what = split + " " + std::to_string(max_len) + "/" + std::to_string(stride);
      mismatches +=
          compare_features(s, build_train_features(s.examples, tok, options), rows, max_len, true, what + " train");
      mismatches +=
          compare_features(s, build_eval_features(s.examples, tok, options), rows, max_len, false, what + " eval");
      compared += 2 * static_cast<int>(rows.size());
    }
  }
  EXPECT_GT(compared, 4000);
  EXPECT_EQ(mismatches, 0);
}

TEST(FeatureBuilder, UnpaddedFeaturesStopAtTheLastSep) {
  const Tokenizer tok = Tokenizer::load(testing::text_fixture(""));
  Example ex;
  ex.id = "short";
  ex.question = "  \u3000 Who?";
  ex.context = "Ann did.";
  ex.answers = {{"did", 4}};
  const auto features = build_train_features({ex}, tok, {384, 128, false});
  ASSERT_EQ(features.size(), 1u);
  // [CLS] who ? [SEP] ann did . [SEP]
  EXPECT_EQ(features[0].input_ids.size(), 8u);
  EXPECT_EQ(features[0].input_ids[1], tok.encode("who").ids[0]);
  EXPECT_EQ(features[0].start_position, 5);
  EXPECT_EQ(features[0].end_position, 5);
}

// Both cases raise in Hugging Face tokenizers too (checked with tokenizers 0.23.3): "Sequence to truncate
// too short to respect the provided max_length" and the panic "`stride` must be strictly less than `max_len`".
std::string long_question_error(int max_len, int stride) {
  const Tokenizer tok = Tokenizer::load(testing::text_fixture(""));
  Example ex;
  ex.id = "long-question";
  for (int i = 0; i < 60; ++i) ex.question += "why ";
  for (int i = 0; i < 200; ++i) ex.context += "word ";
  try {
    return std::to_string(build_eval_features({ex}, tok, {max_len, stride, true}).size()) + " features";
  } catch (const Error& e) {
    return e.what();
  }
}

TEST(FeatureBuilder, QuestionTooLongForAnyWindowFailsLikeHuggingFace) {
  EXPECT_EQ(long_question_error(50, 10),
            "example 'long-question': the question has more than 47 tokens, which leaves 0 context tokens per window "
            "of max_seq_length 50, expected more than doc_stride 10 (Hugging Face tokenizers fails on this example "
            "too)");
  EXPECT_EQ(long_question_error(96, 40),
            "example 'long-question': the question has 60 tokens, which leaves 33 context tokens per window of "
            "max_seq_length 96, expected more than doc_stride 40 (Hugging Face tokenizers fails on this example too)");
  EXPECT_EQ(long_question_error(96, 32), "168 features");  // windows of 33 tokens, 1 apart, as HF gives
}

TEST(FeatureBuilder, InvalidUtf8NamesTheExampleAndField) {
  const Tokenizer tok = Tokenizer::load(testing::text_fixture(""));
  Example ex;
  ex.id = "bad";
  ex.question = "ok?";
  ex.context = "caf\xC3";
  try {
    build_eval_features({ex}, tok, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "example 'bad': context: invalid UTF-8 at byte 3: expected a valid UTF-8 sequence");
  }
}

TEST(FeatureBuilder, RejectsImpossibleOptions) {
  const Tokenizer tok = Tokenizer::load(testing::text_fixture(""));
  EXPECT_THROW(build_train_features({}, tok, {3, 0, true}), Error);
  EXPECT_THROW(build_train_features({}, tok, {384, -1, true}), Error);
}

// The whole SQuAD file (optional, beside the repository: tests/common/shared_data.h), compared by feature
// count and by a hash of every field of every 384/128 feature computed by the generator on the HF features.
std::vector<Example> read_flat_squad(const std::string& path) {
  const json root = json::parse(read_file(path));
  std::vector<Example> examples;
  for (const json& article : root["data"]) {
    for (const json& para : article["paragraphs"]) {
      for (const json& qa : para["qas"]) {
        Example ex;
        ex.id = qa["id"].get<std::string>();
        ex.context = para["context"].get<std::string>();
        ex.question = qa["question"].get<std::string>();
        for (const json& a : qa["answers"])
          ex.answers.push_back({a["text"].get<std::string>(), a["answer_start"].get<int64_t>()});
        examples.push_back(std::move(ex));
      }
    }
  }
  return examples;
}

uint64_t feature_hash(const std::vector<Feature>& train, const std::vector<Feature>& eval) {
  uint64_t h = 0xCBF29CE484222325ull;
  auto mix = [&h](int64_t v) { h = (h ^ (static_cast<uint64_t>(v) & 0xFFFFFFFFull)) * 0x100000001B3ull; };
  for (size_t i = 0; i < train.size(); ++i) {
    for (int32_t v : train[i].input_ids) mix(v);
    for (int8_t v : train[i].token_type_ids) mix(v);
    for (int8_t v : train[i].attention_mask) mix(v);
    mix(train[i].start_position);
    mix(train[i].end_position);
    for (const Span& o : eval[i].offsets) {
      mix(o.begin);
      mix(o.end);
    }
  }
  return h;
}

void check_full_file(const std::string& file, const std::string& key) {
  CPUFT_SHARED_SQUAD_OR_SKIP(path, file);
  const json counts = read_data_fixture("feature_counts.json");
  const Tokenizer tok = Tokenizer::load(testing::text_fixture(""));
  const std::vector<Example> examples = read_flat_squad(path);
  ASSERT_EQ(examples.size(), counts[key]["examples"].get<size_t>());
  const auto t0 = std::chrono::steady_clock::now();
  const auto train = build_train_features(examples, tok, {384, 128, true});
  const auto t1 = std::chrono::steady_clock::now();
  const auto eval = build_eval_features(examples, tok, {384, 128, true});
  std::printf("[ figures  ] %s: %zu examples -> %zu features; train features %.2f s, eval features %.2f s\n",
              file.c_str(), examples.size(), train.size(), std::chrono::duration<double>(t1 - t0).count(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
  ASSERT_EQ(train.size(), counts[key]["features"].get<size_t>());
  ASSERT_EQ(eval.size(), train.size());
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(feature_hash(train, eval)));
  EXPECT_EQ(std::string(hex), counts[key]["hash"].get<std::string>());
  const std::string key_128 = key.substr(0, key.find('_')) + "_128_32";
  EXPECT_EQ(build_eval_features(examples, tok, {128, 32, true}).size(), counts[key_128]["features"].get<size_t>());
}

TEST(FeatureBuilder, FullDevSetMatchesHuggingFace) { check_full_file("dev-v1.1.json", "dev_384_128"); }

// The second setting the features are checked at (docs/parity.md, Features): count and hash of every
// dev feature at (256, 64).
TEST(FeatureBuilder, FullDevSetAt256By64MatchesHuggingFace) {
  CPUFT_SHARED_SQUAD_OR_SKIP(path, "dev-v1.1.json");
  const json expected = read_data_fixture("feature_counts.json")["dev_256_64"];
  const Tokenizer tok = Tokenizer::load(testing::text_fixture(""));
  const std::vector<Example> examples = read_flat_squad(path);
  const auto train = build_train_features(examples, tok, {256, 64, true});
  const auto eval = build_eval_features(examples, tok, {256, 64, true});
  ASSERT_EQ(train.size(), expected["features"].get<size_t>());
  ASSERT_EQ(eval.size(), train.size());
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(feature_hash(train, eval)));
  EXPECT_EQ(std::string(hex), expected["hash"].get<std::string>());
}

TEST(FeatureBuilder, FullTrainSubsetMatchesHuggingFace) { check_full_file("train-subset-v1.1.json", "train_384_128"); }

}  // namespace
}  // namespace cpuft
