// Tokenisation of tricky strings and real SQuAD text against Hugging Face BertTokenizerFast
// (tests/fixtures/text/*.json, written by tools/make_text_reference.py): ids and offsets must be equal.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpuft/text/tokenizer.h"
#include "cpuft/text/unicode_class.h"
#include "text_fixtures.h"

namespace cpuft {
namespace {

using nlohmann::json;
using testing::read_json_fixture;
using testing::ScratchDir;

// Compares encode(text) with ids and flat [b0, e0, b1, e1, ...] offsets; returns the mismatch count.
int compare_encoding(const Tokenizer& tok, const std::string& text, const json& ids, const json& offsets,
                     const std::string& what) {
  const Tokenizer::Encoding enc = tok.encode(text);
  std::vector<int64_t> flat;
  for (const TokenOffset& o : enc.offsets) {
    flat.push_back(o.begin);
    flat.push_back(o.end);
  }
  const bool same = enc.ids == ids.get<std::vector<int32_t>>() && flat == offsets.get<std::vector<int64_t>>();
  EXPECT_TRUE(same) << what << ": " << json(text).dump() << "\n got ids " << json(enc.ids).dump() << " offsets "
                    << json(flat).dump() << "\n want ids " << ids.dump() << " offsets " << offsets.dump();
  return same ? 0 : 1;
}

int compare_cases(const Tokenizer& tok, const std::string& setting) {
  const json cases = read_json_fixture("tokenize_cases.json");
  const json& texts = cases["texts"];
  const json& expected = cases["settings"][setting];
  EXPECT_EQ(texts.size(), expected.size());
  int mismatches = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    mismatches += compare_encoding(tok, texts[i].get<std::string>(), expected[i]["ids"], expected[i]["offsets"],
                                   setting + " case " + std::to_string(i));
  }
  return mismatches;
}

// A directory with vocab.txt and, when not empty, this tokenizer_config.json.
Tokenizer vocab_txt_tokenizer(const ScratchDir& dir, const std::string& config) {
  dir.copy_fixture("vocab.txt");
  if (!config.empty()) dir.write("tokenizer_config.json", config);
  return Tokenizer::load(dir.path());
}

TEST(TokenizeCases, HelloWorldFromSpec) {
  const Tokenizer tok = Tokenizer::load(testing::text_fixture(""));
  const auto enc = tok.encode("Hello, world!");
  EXPECT_EQ(enc.ids, (std::vector<int32_t>{7592, 1010, 2088, 999}));
  ASSERT_EQ(enc.offsets.size(), 4u);
  EXPECT_EQ(enc.offsets[1].begin, 5);
  EXPECT_EQ(enc.offsets[3].end, 13);
  EXPECT_EQ(tok.cls_id(), 101);
  EXPECT_EQ(tok.sep_id(), 102);
  EXPECT_EQ(tok.pad_id(), 0);
  EXPECT_EQ(tok.unk_id(), 100);
  EXPECT_EQ(tok.vocab_size(), 30522);
}

TEST(TokenizeCases, UncasedTokenizerJson) {
  EXPECT_EQ(compare_cases(Tokenizer::load(testing::text_fixture("")), "uncased"), 0);
}

TEST(TokenizeCases, UncasedVocabTxtOnly) {
  ScratchDir dir("uncased_vocab");
  EXPECT_EQ(compare_cases(vocab_txt_tokenizer(dir, ""), "uncased"), 0);
}

TEST(TokenizeCases, CasedVocabTxt) {
  ScratchDir dir("cased_vocab");
  EXPECT_EQ(compare_cases(vocab_txt_tokenizer(dir, R"({"do_lower_case": false})"), "cased"), 0);
}

TEST(TokenizeCases, CasedByTokenizerConfigOverridingTokenizerJson) {
  ScratchDir dir("cased_json");
  dir.copy_fixture("tokenizer.json");
  dir.write("tokenizer_config.json", R"({"do_lower_case": false, "unk_token": {"content": "[UNK]"}})");
  const Tokenizer tok = Tokenizer::load(dir.path());
  EXPECT_FALSE(tok.normalizer_options().lowercase);
  EXPECT_EQ(compare_cases(tok, "cased"), 0);
}

TEST(TokenizeCases, UncasedKeepAccents) {
  ScratchDir dir("keep_accents");
  EXPECT_EQ(compare_cases(vocab_txt_tokenizer(dir, R"({"do_lower_case": true, "strip_accents": false})"),
                          "uncased_keep_accents"),
            0);
}

TEST(TokenizeCases, UncasedWithoutChineseCharHandling) {
  ScratchDir dir("no_chinese");
  EXPECT_EQ(compare_cases(vocab_txt_tokenizer(dir, R"({"tokenize_chinese_chars": false})"), "uncased_no_chinese"), 0);
}

TEST(TokenizeCases, RealSquadQuestionsAndContexts) {
  const Tokenizer tok = Tokenizer::load(testing::text_fixture(""));
  const json sets = read_json_fixture("squad_examples.json");
  int compared = 0;
  int mismatches = 0;
  for (const auto& [split, set] : sets.items()) {
    for (const json& c : set["contexts"]) {
      mismatches += compare_encoding(tok, c["text"].get<std::string>(), c["ids"], c["offsets"], split + " context");
      ++compared;
    }
    for (const json& e : set["examples"]) {
      const std::string question(lstrip_python_space(e["question"].get<std::string>()));
      mismatches += compare_encoding(tok, question, e["question_ids"], e["question_offsets"], split + " question");
      ++compared;
    }
  }
  EXPECT_GT(compared, 700);
  EXPECT_EQ(mismatches, 0);
}

TEST(TokenizeCases, SourceFilesListTheDirectory) {
  const Tokenizer tok = Tokenizer::load(testing::text_fixture(""));
  ASSERT_EQ(tok.source_files().size(), 3u);
  EXPECT_EQ(tok.source_files()[0], testing::text_fixture("tokenizer.json"));
}

}  // namespace
}  // namespace cpuft
