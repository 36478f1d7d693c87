// Edge inputs of the feature builder, each checked against what Hugging Face does (BertTokenizerFast
// from transformers, the tokenizer run_qa.py uses; expected ids were printed by it on the same vocab).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpuft/data/feature_builder.h"
#include "cpuft/text/tokenizer.h"
#include "cpuft/util/error.h"
#include "text/text_fixtures.h"

namespace cpuft {
namespace {

using testing::ScratchDir;

// The tiny duplicate-free vocabulary of the cases below; [CLS]=2, [SEP]=3, hello=5, world=6.
Tokenizer tiny_tokenizer(const ScratchDir& dir) {
  dir.write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nworld\n");
  return Tokenizer::load(dir.path());
}

std::vector<int32_t> unpadded(const Feature& f) {
  std::vector<int32_t> ids;
  for (size_t i = 0; i < f.input_ids.size() && f.attention_mask[i] == 1; ++i) ids.push_back(f.input_ids[i]);
  return ids;
}

// run_qa accepts an empty question or context: the batched tokenizer call makes
// [CLS] [SEP] context [SEP] and [CLS] question [SEP] [SEP] (printed by BertTokenizerFast with lists of
// questions and contexts, truncation only_second, as run_qa calls it). cpuft builds the same features.
TEST(EdgeInputs, EmptyQuestionOrContextGivesHuggingFaceFeatures) {
  ScratchDir dir("empty_fields");
  const Tokenizer tok = tiny_tokenizer(dir);
  Example no_question{"q0", "", "hello world", "  ", {}, false};  // lstripped to ""
  Example no_context{"c0", "", "", "hello", {}, false};
  const FeatureOptions options{16, 4, true};
  const auto features = build_eval_features({no_question, no_context}, tok, options);
  ASSERT_EQ(features.size(), 2u);
  EXPECT_EQ(unpadded(features[0]), (std::vector<int32_t>{2, 3, 5, 6, 3}));
  EXPECT_EQ(features[0].offsets[2].begin, 0);
  EXPECT_EQ(features[0].offsets[3].end, 11);
  EXPECT_EQ(unpadded(features[1]), (std::vector<int32_t>{2, 5, 3, 3}));
  for (const Span& s : features[1].offsets) EXPECT_EQ(s.begin, -1);  // no context token at all
}

// With an answer but an empty context, run_qa's prepare_train_features raises IndexError (its loop looking
// for the first context token runs off the feature). cpuft fails there too, with one line naming the example.
TEST(EdgeInputs, AnswerInAnEmptyContextFailsLikeHuggingFace) {
  ScratchDir dir("empty_context_train");
  const Tokenizer tok = tiny_tokenizer(dir);
  Example ex{"c0", "", "", "hello", {{"x", 0}}, false};
  try {
    build_train_features({ex}, tok, {16, 4, true});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "example 'c0': the context has no tokens, expected at least one");
  }
}

}  // namespace
}  // namespace cpuft
