#include "cpuft/io/hf_config.h"

#include <gtest/gtest.h>

#include "common/temp_dir.h"
#include "io_test_util.h"

using cpuft::ModelConfig;
using cpuft::ModelFamily;
using io_test::expect_error;
using io_test::fixture;

namespace {

// Writes `text` as config.json in a fresh directory and returns its path.
std::string config_file(const std::string& text) {
  std::string path = cpuft_test::temp_dir_until_exit() + "/config.json";
  cpuft::write_file_atomic(path, text);
  return path;
}

ModelConfig load_text(const std::string& text) { return cpuft::load_model_config(config_file(text)); }

}  // namespace

TEST(HfConfig, ReadsTransformersDistilBert) {
  ModelConfig c = cpuft::load_model_config(fixture("distilbert_qa/config.json"));
  EXPECT_EQ(c.family, ModelFamily::kDistilBert);
  EXPECT_EQ(c.vocab_size, 58);
  EXPECT_EQ(c.max_position_embeddings, 64);
  EXPECT_EQ(c.hidden, 32);
  EXPECT_EQ(c.layers, 2);
  EXPECT_EQ(c.heads, 4);
  EXPECT_EQ(c.head_dim(), 8);
  EXPECT_EQ(c.intermediate, 48);
  EXPECT_EQ(c.type_vocab_size, 0);
  EXPECT_FLOAT_EQ(c.qa_dropout, 0.1f);
  EXPECT_FLOAT_EQ(c.layer_norm_eps, 1e-12f);
  EXPECT_STREQ(c.prefix(), "distilbert.");
  EXPECT_EQ(c.raw["transformers_version"], "5.24.0");
}

TEST(HfConfig, ReadsTransformersBert) {
  ModelConfig c = cpuft::load_model_config(fixture("bert_qa/config.json"));
  EXPECT_EQ(c.family, ModelFamily::kBert);
  EXPECT_EQ(c.hidden, 32);
  EXPECT_EQ(c.layers, 2);
  EXPECT_EQ(c.intermediate, 48);
  EXPECT_EQ(c.type_vocab_size, 2);
  EXPECT_EQ(c.qa_dropout, 0.f);
  EXPECT_FLOAT_EQ(c.hidden_dropout, 0.1f);
  EXPECT_FLOAT_EQ(c.attention_dropout, 0.1f);
  EXPECT_STREQ(c.prefix(), "bert.");
}

TEST(HfConfig, DefaultsAreTransformers) {
  ModelConfig d = load_text(R"({"model_type": "distilbert", "dim": 384, "n_heads": 6})");
  EXPECT_EQ(d.layers, 6);
  EXPECT_EQ(d.intermediate, 3072);  // DistilBertConfig's hidden_dim default is 4*768 whatever dim is
  EXPECT_EQ(d.vocab_size, 30522);
  EXPECT_EQ(d.max_position_embeddings, 512);
  EXPECT_FLOAT_EQ(d.hidden_dropout, 0.1f);
  EXPECT_FLOAT_EQ(d.initializer_range, 0.02f);
  EXPECT_EQ(d.pad_token_id, 0);

  ModelConfig b = load_text(R"({"model_type": "bert", "pad_token_id": null})");
  EXPECT_EQ(b.hidden, 768);
  EXPECT_EQ(b.layers, 12);
  EXPECT_EQ(b.heads, 12);
  EXPECT_EQ(b.intermediate, 3072);
  EXPECT_EQ(b.type_vocab_size, 2);
  EXPECT_FLOAT_EQ(b.layer_norm_eps, 1e-12f);
  EXPECT_EQ(b.pad_token_id, 0);
  EXPECT_EQ(b.activation, "gelu");
}

TEST(HfConfig, DistilBertAliases) {
  ModelConfig c = load_text(
      R"({"model_type": "distilbert", "hidden_size": 384, "num_attention_heads": 6, "num_hidden_layers": 3,
          "sinusoidal_pos_embds": false, "layer_norm_eps": 1e-5})");
  EXPECT_EQ(c.hidden, 384);
  EXPECT_EQ(c.heads, 6);
  EXPECT_EQ(c.layers, 3);
  EXPECT_FLOAT_EQ(c.layer_norm_eps, 1e-12f);  // not a DistilBERT config field
  ModelConfig same = load_text(R"({"model_type": "distilbert", "dim": 384, "hidden_size": 384, "n_heads": 6})");
  EXPECT_EQ(same.hidden, 384);
}

TEST(HfConfig, RejectsBadConfigs) {
  struct Case {
    const char* text;
    std::vector<std::string> pieces;
  };
  std::vector<Case> cases = {
      {"{\"model_type\": \"bert\",\n \"hidden_size\": 32,,}", {"not valid JSON", "line 2, column"}},
      {"[1]", {"top level is array; expected a JSON object"}},
      {R"({"dim": 768})", {"missing \"model_type\"; expected \"distilbert\" or \"bert\""}},
      {R"({"model_type": 7})", {"\"model_type\" is 7; expected a string"}},
      {R"({"model_type": "roberta"})", {"model_type \"roberta\" is not supported; supported: \"distilbert\", \"bert\""}},
      {R"({"model_type": "distilbert", "dim": 100})", {"\"dim\" 100 is not divisible by \"n_heads\" 12"}},
      {R"({"model_type": "bert", "hidden_size": 100})",
       {"\"hidden_size\" 100 is not divisible by \"num_attention_heads\" 12"}},
      {R"({"model_type": "distilbert", "n_layers": 0})", {"\"n_layers\" is 0; expected a positive integer"}},
      {R"({"model_type": "bert", "vocab_size": -5})", {"\"vocab_size\" is -5; expected a positive integer"}},
      {R"({"model_type": "bert", "type_vocab_size": 0})", {"\"type_vocab_size\" is 0; expected a positive integer"}},
      {R"({"model_type": "distilbert", "activation": "relu"})",
       {"\"activation\" is \"relu\"; cpuft supports only \"gelu\""}},
      {R"({"model_type": "bert", "hidden_act": "gelu_new"})",
       {"\"hidden_act\" is \"gelu_new\"; cpuft supports only \"gelu\""}},
      {R"({"model_type": "bert", "position_embedding_type": "relative_key"})",
       {"\"position_embedding_type\" is \"relative_key\"; cpuft supports only \"absolute\""}},
      {R"({"model_type": "distilbert", "dim": "768"})", {"\"dim\" is \"768\"; expected an integer"}},
      {R"({"model_type": "distilbert", "dim": 768.0})", {"\"dim\" is 768.0; expected an integer"}},
      {R"({"model_type": "distilbert", "dropout": "0.1"})", {"\"dropout\" is \"0.1\"; expected a number"}},
      {R"({"model_type": "bert", "attention_probs_dropout_prob": 1.5})",
       {"\"attention_probs_dropout_prob\" is 1.5; expected a number in [0, 1]"}},
      {R"({"model_type": "bert", "layer_norm_eps": 0})", {"\"layer_norm_eps\" is 0; expected a number in ["}},
      {R"({"model_type": "distilbert", "sinusoidal_pos_embds": 1})",
       {"\"sinusoidal_pos_embds\" is 1; expected true or false"}},
      // transformers makes fixed (untrained) sinusoidal position embeddings of it; cpuft refuses it.
      {R"({"model_type": "distilbert", "sinusoidal_pos_embds": true})",
       {"\"sinusoidal_pos_embds\" is true; cpuft supports only learned position embeddings (false)"}},
      {R"({"model_type": "bert", "hidden_act": null})", {"\"hidden_act\" is null; expected a string"}},
      {R"({"model_type": "bert", "pad_token_id": 30522})",
       {"\"pad_token_id\" is 30522; expected a token id in [0, 30522)"}},
      {R"({"model_type": "distilbert", "dim": 768, "hidden_size": 384})",
       {"\"dim\" is 768 but its alias \"hidden_size\" is 384; expected one value"}},
      // Sizes that would have the model allocated for minutes before anything else is checked.
      {R"({"model_type": "bert", "num_hidden_layers": 1000000000})",
       {"\"num_hidden_layers\" is 1000000000; expected a positive integer up to 512"}},
      {R"({"model_type": "distilbert", "dim": 1048576, "n_heads": 1})",
       {"\"dim\" is 1048576; expected a positive integer up to 65536"}},
      {R"({"model_type": "bert", "vocab_size": 100000000})", {"\"vocab_size\" is 100000000; expected a positive"}},
      {R"({"model_type": "bert", "max_position_embeddings": 18446744073709551615})",
       {"\"max_position_embeddings\" is 18446744073709551615; expected an integer"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    std::string path = config_file(c.text);
    std::vector<std::string> pieces = c.pieces;
    pieces.push_back(path + ": ");
    expect_error([&] { cpuft::load_model_config(path); }, pieces);
  }
  expect_error([] { cpuft::load_model_config("/nonexistent/config.json"); },
               {"/nonexistent/config.json: missing, expected a regular file"});
}

// A value nested 100,000 deep crashed the error message that printed it; values in messages are
// short previews, and nesting is refused before anything is built.
TEST(HfConfig, HostileValuesAndFiles) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string path = config_file("{\"model_type\": " + deep + "}");
  expect_error([&] { cpuft::load_model_config(path); }, {path + ": nested deeper than 64 levels at byte 79"});
  const std::string wide = config_file("{\"model_type\": \"" + std::string(1 << 20, 'x') + "\"}");
  try {
    cpuft::load_model_config(wide);
    ADD_FAILURE();
  } catch (const cpuft::Error& e) {
    EXPECT_LT(std::string(e.what()).size(), wide.size() + 200) << "the value is cut in the message";
  }
  const std::string shallow = config_file("{\"model_type\": [[[[1]]]]}");
  expect_error([&] { cpuft::load_model_config(shallow); }, {"\"model_type\" is [[[[1]]]]; expected a string"});
  expect_error([] { cpuft::load_model_config("/dev/zero"); }, {"/dev/zero: is a character device, expected a regular file"});
  const std::string dir = cpuft_test::temp_dir_until_exit();
  expect_error([&] { cpuft::load_model_config(dir); }, {dir + ": is a directory, expected a regular file"});
}

TEST(HfConfig, SaveSetsQaArchitectureAndKeepsTheRest) {
  ModelConfig c = load_text(
      R"({"model_type": "distilbert", "architectures": ["DistilBertForMaskedLM"], "tie_weights_": true,
          "dim": 32, "n_heads": 4, "dtype": "bfloat16", "name": "caf\u00e9"})");
  std::string out = cpuft_test::temp_dir_until_exit() + "/config.json";
  cpuft::save_model_config(c, out);
  std::string text = cpuft::read_file(out);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.substr(0, 20), "{\n  \"architectures\":");  // indent 2, keys sorted
  EXPECT_NE(text.find("\"caf\\u00e9\""), std::string::npos);  // ASCII-escaped like json.dumps
  nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["architectures"], nlohmann::json::array({"DistilBertForQuestionAnswering"}));
  EXPECT_EQ(j["torch_dtype"], "float32");
  EXPECT_EQ(j["dtype"], "float32");
  EXPECT_EQ(j["tie_weights_"], true);
  EXPECT_EQ(j["dim"], 32);

  ModelConfig b = cpuft::load_model_config(fixture("bert_qa/config.json"));
  cpuft::save_model_config(b, out);
  nlohmann::json jb = nlohmann::json::parse(cpuft::read_file(out));
  EXPECT_EQ(jb["architectures"], nlohmann::json::array({"BertForQuestionAnswering"}));
  jb.erase("torch_dtype");
  EXPECT_EQ(jb, b.raw);  // nothing else changed
}

TEST(HfConfig, SaveConfigBuiltInCode) {
  ModelConfig c;
  c.family = ModelFamily::kBert;
  c.hidden = 64, c.heads = 4, c.layers = 3, c.intermediate = 100, c.type_vocab_size = 2, c.vocab_size = 99;
  std::string out = cpuft_test::temp_dir_until_exit() + "/config.json";
  cpuft::save_model_config(c, out);
  ModelConfig back = cpuft::load_model_config(out);
  EXPECT_EQ(back.family, ModelFamily::kBert);
  EXPECT_EQ(back.hidden, 64);
  EXPECT_EQ(back.heads, 4);
  EXPECT_EQ(back.layers, 3);
  EXPECT_EQ(back.intermediate, 100);
  EXPECT_EQ(back.vocab_size, 99);
  EXPECT_EQ(back.raw["architectures"][0], "BertForQuestionAnswering");
}
