// Loading tokenizer directories: every bad input is one cpuft::Error naming the file and field.
#include <gtest/gtest.h>

#include <string>

#include "cpuft/text/tokenizer.h"
#include "cpuft/util/error.h"
#include "text_fixtures.h"

namespace cpuft {
namespace {

using nlohmann::json;
using testing::ScratchDir;

// The error message of Tokenizer::load(dir), or "" when it loads.
std::string load_error(const ScratchDir& dir) {
  try {
    Tokenizer::load(dir.path());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The fixture tokenizer.json with `edit` applied, written into `dir`.
template <typename Edit>
void write_edited_tokenizer_json(const ScratchDir& dir, Edit edit) {
  json j = testing::read_json_fixture("tokenizer.json");
  edit(j);
  dir.write("tokenizer.json", j.dump());
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(TokenizerLoad, MissingDirectoryContents) {
  ScratchDir dir("empty");
  const std::string err = load_error(dir);
  EXPECT_TRUE(contains(err, "no tokenizer.json or vocab.txt")) << err;
  EXPECT_TRUE(contains(err, dir.path())) << err;
}

TEST(TokenizerLoad, EmptyVocabTxt) {
  ScratchDir dir("empty_vocab");
  dir.write("vocab.txt", "");
  EXPECT_EQ(load_error(dir), dir.path() + "/vocab.txt: empty vocabulary, expected at least one token");
}

TEST(TokenizerLoad, VocabWithoutUnkToken) {
  ScratchDir dir("no_unk");
  dir.write("vocab.txt", "[PAD]\n[CLS]\n[SEP]\nhello\n");
  EXPECT_EQ(load_error(dir), dir.path() + "/vocab.txt: unk token '[UNK]' is not in the vocabulary");
}

TEST(TokenizerLoad, VocabWithoutSepToken) {
  ScratchDir dir("no_sep");
  dir.write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\nhello\n");
  EXPECT_EQ(load_error(dir), dir.path() + "/vocab.txt: sep token '[SEP]' is not in the vocabulary");
}

TEST(TokenizerLoad, TinyVocabTxtWithCrlfLines) {
  ScratchDir dir("tiny");
  dir.write("vocab.txt", "[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\nhello\r\n##s\r\n,\r\n");
  const Tokenizer tok = Tokenizer::load(dir.path());
  EXPECT_EQ(tok.vocab_size(), 7);
  EXPECT_EQ(tok.encode("Hellos, hi").ids, (std::vector<int32_t>{4, 5, 6, 1}));
}

TEST(TokenizerLoad, MalformedTokenizerJson) {
  ScratchDir dir("malformed");
  dir.write("tokenizer.json", "{\"model\": {\"type\": \"WordPiece\",");
  const std::string err = load_error(dir);
  EXPECT_TRUE(contains(err, dir.path() + "/tokenizer.json: malformed JSON:")) << err;
}

TEST(TokenizerLoad, MalformedTokenizerConfig) {
  ScratchDir dir("bad_config");
  dir.copy_fixture("vocab.txt");
  dir.write("tokenizer_config.json", "{\"do_lower_case\": \"yes\"}");
  EXPECT_EQ(load_error(dir), dir.path() + "/tokenizer_config.json: do_lower_case: found string \"yes\", expected true or false");
}

TEST(TokenizerLoad, BpeModelIsNotSupported) {
  ScratchDir dir("bpe");
  write_edited_tokenizer_json(dir, [](json& j) { j["model"] = {{"type", "BPE"}, {"vocab", json::object()}, {"merges", json::array()}}; });
  EXPECT_EQ(load_error(dir), dir.path() + "/tokenizer.json: model.type is 'BPE': not supported, expected 'WordPiece'");
}

TEST(TokenizerLoad, OtherNormalizerIsNotSupported) {
  ScratchDir dir("nfkc");
  write_edited_tokenizer_json(dir, [](json& j) { j["normalizer"] = {{"type", "NFKC"}}; });
  EXPECT_EQ(load_error(dir), dir.path() + "/tokenizer.json: normalizer.type is 'NFKC': not supported, expected 'BertNormalizer'");
}

TEST(TokenizerLoad, OtherPreTokenizerIsNotSupported) {
  ScratchDir dir("metaspace");
  write_edited_tokenizer_json(dir, [](json& j) { j["pre_tokenizer"] = {{"type", "Metaspace"}}; });
  EXPECT_EQ(load_error(dir),
            dir.path() + "/tokenizer.json: pre_tokenizer.type is 'Metaspace': not supported, expected 'BertPreTokenizer'");
}

TEST(TokenizerLoad, NormalizedAddedTokenIsNotSupported) {
  ScratchDir dir("normalized_added");
  write_edited_tokenizer_json(dir, [](json& j) { j["added_tokens"][1]["normalized"] = true; });
  EXPECT_EQ(load_error(dir), dir.path() +
                                 "/tokenizer.json: added_tokens[1].normalized is true: not supported, expected false "
                                 "(BERT special tokens)");
}

TEST(TokenizerLoad, VocabIdOfWrongType) {
  ScratchDir dir("bad_id");
  write_edited_tokenizer_json(dir, [](json& j) { j["model"]["vocab"]["hello"] = "7592"; });
  EXPECT_EQ(load_error(dir),
            dir.path() + "/tokenizer.json: model.vocab[\"hello\"]: found \"7592\", expected a non-negative integer id");
}

TEST(TokenizerLoad, MissingModelVocab) {
  ScratchDir dir("no_vocab");
  write_edited_tokenizer_json(dir, [](json& j) { j["model"].erase("vocab"); });
  EXPECT_EQ(load_error(dir), dir.path() + "/tokenizer.json: model.vocab: missing, expected an object");
}

TEST(TokenizerLoad, FlagOfWrongType) {
  ScratchDir dir("bad_flag");
  write_edited_tokenizer_json(dir, [](json& j) { j["normalizer"]["lowercase"] = 1; });
  EXPECT_EQ(load_error(dir), dir.path() + "/tokenizer.json: normalizer.lowercase: found number 1, expected true or false");
}

TEST(TokenizerLoad, LiteralSpecialTokensAreMatchedVerbatim) {
  const Tokenizer tok = Tokenizer::load(testing::text_fixture(""));
  const auto enc = tok.encode("a[SEP]b [sep]");
  EXPECT_EQ(enc.ids[1], 102);
  EXPECT_EQ(enc.offsets[1].begin, 1);
  EXPECT_EQ(enc.offsets[1].end, 6);
  EXPECT_NE(enc.ids[4], 102);  // lowercase is not the special token: "[", "sep", "]"
}

}  // namespace
}  // namespace cpuft
