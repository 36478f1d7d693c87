// Loading tokenizer directories: every bad input is one cpuft::Error naming the file and field.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
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
  EXPECT_TRUE(contains(err, dir.path() + "/tokenizer.json: not valid JSON at byte ")) << err;
}

TEST(TokenizerLoad, MalformedTokenizerConfig) {
  ScratchDir dir("bad_config");
  dir.copy_fixture("vocab.txt");
  dir.write("tokenizer_config.json", "{\"do_lower_case\": \"yes\"}");
  EXPECT_EQ(load_error(dir),
            dir.path() + "/tokenizer_config.json: do_lower_case: found string \"yes\", expected true or false");
}

TEST(TokenizerLoad, BpeModelIsNotSupported) {
  ScratchDir dir("bpe");
  write_edited_tokenizer_json(dir, [](json& j) {
    j["model"] = {{"type", "BPE"}, {"vocab", json::object()}, {"merges", json::array()}};
  });
  EXPECT_EQ(load_error(dir), dir.path() + "/tokenizer.json: model.type is 'BPE': not supported, expected 'WordPiece'");
}

TEST(TokenizerLoad, OtherNormalizerIsNotSupported) {
  ScratchDir dir("nfkc");
  write_edited_tokenizer_json(dir, [](json& j) { j["normalizer"] = {{"type", "NFKC"}}; });
  EXPECT_EQ(load_error(dir),
            dir.path() + "/tokenizer.json: normalizer.type is 'NFKC': not supported, expected 'BertNormalizer'");
}

TEST(TokenizerLoad, OtherPreTokenizerIsNotSupported) {
  ScratchDir dir("metaspace");
  write_edited_tokenizer_json(dir, [](json& j) { j["pre_tokenizer"] = {{"type", "Metaspace"}}; });
  EXPECT_EQ(
      load_error(dir),
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
  EXPECT_EQ(load_error(dir),
            dir.path() + "/tokenizer.json: normalizer.lowercase: found number 1, expected true or false");
}

TEST(TokenizerLoad, EveryOtherBadTokenizerJsonField) {
  struct Case {
    void (*edit)(json&);
    const char* message;  // after "<dir>/tokenizer.json: "
  };
  const Case cases[] = {
      {[](json& j) { j = json::array(); }, "found array, expected a JSON object"},
      {[](json& j) { j.erase("model"); }, "model: missing, expected an object with a \"type\""},
      {[](json& j) { j["model"] = 3; }, "model: found number, expected an object"},
      {[](json& j) { j["model"].erase("type"); }, "model.type is '': not supported, expected 'WordPiece'"},
      {[](json& j) { j["post_processor"] = {{"type", "RobertaProcessing"}}; },
       "post_processor.type is 'RobertaProcessing': not supported, expected 'BertProcessing', 'TemplateProcessing'"},
      {[](json& j) { j["added_tokens"] = json::object(); }, "added_tokens: found object, expected an array"},
      {[](json& j) { j["added_tokens"][0] = "[PAD]"; }, "added_tokens[0]: found string, expected an object"},
      {[](json& j) { j["added_tokens"][2]["content"] = ""; },
       "added_tokens[2]: content '' id 101, expected a non-empty content and an id >= 0"},
      {[](json& j) { j["added_tokens"][2]["id"] = 1.5; }, "added_tokens[2].id: found number 1.5, expected an integer"},
      {[](json& j) { j["model"]["vocab"]["hello"] = -4; },
       "model.vocab[\"hello\"]: found -4, expected a non-negative integer id"},
      {[](json& j) { j["model"]["max_input_chars_per_word"] = -1; },
       "model.max_input_chars_per_word: found number -1, expected a non-negative integer"},
      {[](json& j) { j["model"]["unk_token"] = "<unk>"; }, "unk token '<unk>' is not in the vocabulary"},
      {[](json& j) { j["model"]["vocab"] = json::object(); }, "model.vocab: empty vocabulary, expected at least one token"},
  };
  for (const Case& c : cases) {
    ScratchDir dir("bad_field");
    write_edited_tokenizer_json(dir, c.edit);
    EXPECT_EQ(load_error(dir), dir.path() + "/tokenizer.json: " + c.message);
  }
}

TEST(TokenizerLoad, BadTokenizerConfigFields) {
  const std::pair<const char*, const char*> cases[] = {
      {"[1, 2]", "found array, expected a JSON object"},
      {R"({"cls_token": 5})", "cls_token: found number, expected a string or an object with \"content\""},
      {R"({"strip_accents": "no"})", "strip_accents: found string \"no\", expected true or false"},
      {R"({"sep_token": "<s>"})", ""},  // reported against vocab.txt below
  };
  for (const auto& [config, message] : cases) {
    ScratchDir dir("bad_config_field");
    dir.copy_fixture("vocab.txt");
    dir.write("tokenizer_config.json", config);
    const std::string expected = *message ? dir.path() + "/tokenizer_config.json: " + message
                                          : dir.path() + "/vocab.txt: sep token '<s>' is not in the vocabulary";
    EXPECT_EQ(load_error(dir), expected);
  }
}

// Hostile files: nesting beyond the reader's bound, long values (cut in messages), and names that
// are not regular files, each one line naming the file.
TEST(TokenizerLoad, HostileFiles) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  {
    ScratchDir dir("deep_tokenizer");
    dir.write("tokenizer.json", "{\"model\": {\"type\": " + deep + "}}");
    EXPECT_EQ(load_error(dir).rfind(dir.path() + "/tokenizer.json: nested deeper than 64 levels at byte ", 0), 0u);
  }
  {
    ScratchDir dir("deep_config");
    dir.copy_fixture("vocab.txt");
    dir.write("tokenizer_config.json", "{\"cls_token\": " + deep + "}");
    EXPECT_EQ(load_error(dir).rfind(dir.path() + "/tokenizer_config.json: nested deeper than 64 levels", 0), 0u);
  }
  {
    ScratchDir dir("long_type");
    write_edited_tokenizer_json(dir, [](json& j) { j["model"]["type"] = std::string(1 << 20, 'W'); });
    EXPECT_EQ(load_error(dir), dir.path() + "/tokenizer.json: model.type is '" + std::string(48, 'W') +
                                   "...': not supported, expected 'WordPiece'");
  }
  {
    ScratchDir dir("dir_as_file");
    std::filesystem::create_directories(dir.path() + "/tokenizer.json");
    EXPECT_EQ(load_error(dir), dir.path() + "/tokenizer.json: is a directory, expected a regular file");
  }
  {
    ScratchDir dir("fifo_config");
    dir.copy_fixture("vocab.txt");
    ASSERT_EQ(::mkfifo((dir.path() + "/tokenizer_config.json").c_str(), 0600), 0);
    EXPECT_EQ(load_error(dir), dir.path() + "/tokenizer_config.json: is a FIFO, expected a regular file");
  }
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
