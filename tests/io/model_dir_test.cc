#include "cpuft/io/model_dir.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

#include "common/temp_dir.h"
#include "io_test_util.h"

using cpuft::WeightFiles;
using cpuft::ModelFamily;
using cpuft::SafetensorsReader;
using io_test::expect_error;
using io_test::fixture;
using io_test::make_dirs;

namespace {

// Sets environment variables for one test and restores them afterwards.
class EnvGuard {
 public:
  EnvGuard() {
    for (const char* v : kVars) {
      const char* old = std::getenv(v);
      saved_.emplace_back(v, old ? std::optional<std::string>(old) : std::nullopt);
      ::unsetenv(v);
    }
  }
  ~EnvGuard() {
    for (const auto& [name, value] : saved_) {
      if (value) ::setenv(name, value->c_str(), 1);
      else ::unsetenv(name);
    }
  }
  void set(const char* name, const std::string& value) { ::setenv(name, value.c_str(), 1); }

 private:
  static constexpr const char* kVars[] = {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", "HOME"};
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

void touch(const std::string& path, const std::string& text = "{}") { cpuft::write_file_atomic(path, text); }

void set_mtime(const std::string& path, time_t seconds) {
  struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
  ::utimensat(AT_FDCWD, path.c_str(), times, 0);
}

}  // namespace

TEST(ModelDir, HubCacheDirFollowsHuggingFaceHub) {
  EnvGuard env;
  env.set("HOME", "/home/u");
  EXPECT_EQ(cpuft::hf_hub_cache_dir(), "/home/u/.cache/huggingface/hub");
  env.set("XDG_CACHE_HOME", "/xdg");
  EXPECT_EQ(cpuft::hf_hub_cache_dir(), "/xdg/huggingface/hub");
  env.set("HF_HOME", "/hf");
  EXPECT_EQ(cpuft::hf_hub_cache_dir(), "/hf/hub");
  env.set("HUGGINGFACE_HUB_CACHE", "/legacy");
  EXPECT_EQ(cpuft::hf_hub_cache_dir(), "/legacy");
  env.set("HF_HUB_CACHE", "/cache");
  EXPECT_EQ(cpuft::hf_hub_cache_dir(), "/cache");
}

TEST(ModelDir, LocalDirectoryIsUsedAsIs) {
  EXPECT_EQ(cpuft::resolve_model_dir(fixture("bert_qa")), fixture("bert_qa"));
  expect_error([] { cpuft::resolve_model_dir(fixture("bert_qa/config.json")); },
               {fixture("bert_qa/config.json"), "is a file; expected a model directory"});
}

TEST(ModelDir, RepoIdResolvesThroughRefsMain) {
  EnvGuard env;
  std::string home = cpuft_test::temp_dir_until_exit();
  env.set("HF_HOME", home);
  std::string repo = home + "/hub/models--org--tiny-model";
  make_dirs(repo + "/refs");
  make_dirs(repo + "/snapshots/aaa111");
  make_dirs(repo + "/snapshots/bbb222");
  set_mtime(repo + "/snapshots/bbb222", 2000000000);  // newer, but refs/main wins
  touch(repo + "/refs/main", "aaa111\n");
  EXPECT_EQ(cpuft::resolve_model_dir("org/tiny-model"), repo + "/snapshots/aaa111");
}

TEST(ModelDir, RepoIdWithoutRefTakesTheNewestSnapshot) {
  EnvGuard env;
  std::string cache = cpuft_test::temp_dir_until_exit();
  env.set("HF_HUB_CACHE", cache);
  env.set("HF_HOME", "/nonexistent");  // HF_HUB_CACHE takes precedence
  std::string repo = cache + "/models--distilbert-base-uncased";
  make_dirs(repo + "/snapshots/only");
  EXPECT_EQ(cpuft::resolve_model_dir("distilbert-base-uncased"), repo + "/snapshots/only");
  make_dirs(repo + "/snapshots/new");
  set_mtime(repo + "/snapshots/only", 1000000000);
  set_mtime(repo + "/snapshots/new", 1500000000);
  EXPECT_EQ(cpuft::resolve_model_dir("distilbert-base-uncased"), repo + "/snapshots/new");
  make_dirs(repo + "/refs");
  touch(repo + "/refs/main", "deleted-revision");  // a stale ref falls back to the snapshots
  EXPECT_EQ(cpuft::resolve_model_dir("distilbert-base-uncased"), repo + "/snapshots/new");
}

TEST(ModelDir, MissingModelExplainsThatCpuftDoesNotDownload) {
  EnvGuard env;
  std::string home = cpuft_test::temp_dir_until_exit();
  env.set("HF_HOME", home);
  expect_error([] { cpuft::resolve_model_dir("org/absent"); },
               {"org/absent: no such directory, and no Hugging Face cache entry", home + "/hub/models--org--absent",
                "cpuft does not download models", "--model_name_or_path"});
  expect_error([] { cpuft::resolve_model_dir("./no/such/dir"); },
               {"./no/such/dir: no such directory", "cpuft does not download models"});
  make_dirs(home + "/hub/models--org--empty");
  expect_error([] { cpuft::resolve_model_dir("org/empty"); }, {"has no snapshots/ folder"});
}

TEST(ModelDir, FindsWeightFiles) {
  EXPECT_EQ(cpuft::find_weight_files(fixture("bert_qa")),
            std::vector<std::string>{fixture("bert_qa/model.safetensors")});
  std::string dir = cpuft_test::temp_dir_until_exit();
  expect_error([&] { cpuft::find_weight_files(dir); }, {dir, ": no model.safetensors or model.safetensors.index.json"});
  touch(dir + "/pytorch_model.bin.index.json");
  expect_error([&] { cpuft::find_weight_files(dir); },
               {"sharded PyTorch pickle weights", "save_pretrained('" + dir + "', safe_serialization=True)"});
  touch(dir + "/pytorch_model.bin", "pickle");
  expect_error([&] { cpuft::find_weight_files(dir); },
               {dir, "only PyTorch pickle weights (pytorch_model.bin), which cpuft does not read",
                "from safetensors.torch import save_file", dir + "/model.safetensors"});
  expect_error([&] { cpuft::find_weight_files(dir + "/pytorch_model.bin"); }, {"pytorch_model.bin: not a directory"});
}

TEST(ModelDir, CanonicalParamNames) {
  const auto D = ModelFamily::kDistilBert;
  const auto B = ModelFamily::kBert;
  struct Case {
    const char* key;
    ModelFamily family;
    const char* canonical;
  };
  const Case cases[] = {
      {"distilbert.embeddings.word_embeddings.weight", D, "distilbert.embeddings.word_embeddings.weight"},
      {"embeddings.word_embeddings.weight", D, "distilbert.embeddings.word_embeddings.weight"},
      {"transformer.layer.5.ffn.lin2.bias", D, "distilbert.transformer.layer.5.ffn.lin2.bias"},
      {"distilbert.transformer.layer.0.sa_layer_norm.gamma", D, "distilbert.transformer.layer.0.sa_layer_norm.weight"},
      {"qa_outputs.weight", D, "qa_outputs.weight"},
      {"qa_outputs.bias", B, "qa_outputs.bias"},
      {"vocab_transform.weight", D, ""},
      {"vocab_layer_norm.bias", D, ""},
      {"vocab_projector.weight", D, ""},
      {"distilbert.embeddings.position_ids", D, ""},
      {"encoder.layer.0.attention.self.query.weight", D, ""},  // a BERT key is not a DistilBERT parameter
      {"bert.embeddings.LayerNorm.gamma", B, "bert.embeddings.LayerNorm.weight"},
      {"bert.embeddings.LayerNorm.beta", B, "bert.embeddings.LayerNorm.bias"},
      {"embeddings.token_type_embeddings.weight", B, "bert.embeddings.token_type_embeddings.weight"},
      {"encoder.layer.11.output.LayerNorm.beta", B, "bert.encoder.layer.11.output.LayerNorm.bias"},
      {"bert.encoder.layer.3.attention.output.dense.weight", B, "bert.encoder.layer.3.attention.output.dense.weight"},
      {"bert.pooler.dense.weight", B, "bert.pooler.dense.weight"},  // kept: sequence classification uses it
      {"pooler.dense.bias", B, "bert.pooler.dense.bias"},
      {"pooler.dense.bias", D, ""},  // DistilBERT has no pooler
      {"classifier.weight", D, "classifier.weight"},
      {"pre_classifier.bias", D, "pre_classifier.bias"},
      {"classifier.dense.weight", B, ""},
      {"cls.predictions.transform.LayerNorm.gamma", B, ""},
      {"cls.seq_relationship.weight", B, ""},
      {"bert.embeddings.position_ids", B, ""},
      {"embeddings.position_ids", B, ""},
      {"distilbert.transformer.layer.0.ffn.lin1.weight", B, ""},
  };
  for (const Case& c : cases) EXPECT_EQ(cpuft::canonical_param_name(c.key, c.family), c.canonical) << c.key;
}

TEST(ModelDir, WeightFilesOfTransformersDirectories) {
  WeightFiles d(fixture("distilbert_qa"), ModelFamily::kDistilBert);
  EXPECT_EQ(d.tensors().size(), 38u);
  EXPECT_TRUE(d.ignored_keys().empty());
  ASSERT_NE(d.find("qa_outputs.weight"), nullptr);
  EXPECT_EQ(d.find("qa_outputs.weight")->info->shape, (std::vector<int64_t>{2, 32}));

  WeightFiles qa(fixture("bert_qa"), ModelFamily::kBert);
  WeightFiles legacy(fixture("bert_legacy"), ModelFamily::kBert);
  EXPECT_EQ(legacy.tensors().size(), 39u);
  for (const auto& [name, t] : qa.tensors()) {
    const cpuft::WeightTensor* l = legacy.find(name);
    ASSERT_NE(l, nullptr) << name;
    EXPECT_EQ(l->reader->read_f32(l->info->name), t.reader->read_f32(t.info->name)) << name;
  }
  EXPECT_EQ(legacy.find("bert.embeddings.LayerNorm.weight")->info->name, "bert.embeddings.LayerNorm.gamma");

  WeightFiles bare(fixture("bert_bare"), ModelFamily::kBert);
  EXPECT_EQ(bare.tensors().size(), 39u);  // no qa_outputs; the pooler's two tensors
  EXPECT_EQ(bare.find("qa_outputs.weight"), nullptr);
  ASSERT_NE(bare.find("bert.encoder.layer.1.output.dense.weight"), nullptr);
  EXPECT_EQ(bare.find("bert.encoder.layer.1.output.dense.weight")->info->name, "encoder.layer.1.output.dense.weight");
  EXPECT_TRUE(bare.ignored_keys().empty());
  ASSERT_NE(bare.find("bert.pooler.dense.weight"), nullptr);
}

TEST(ModelDir, WeightFilesRejectTwoKeysForOneParameter) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  float x[2] = {1, 2};
  cpuft::write_safetensors(dir + "/model.safetensors",
                           {{"bert.embeddings.LayerNorm.weight", {2}, x}, {"embeddings.LayerNorm.gamma", {2}, x}});
  expect_error([&] { WeightFiles c(dir, ModelFamily::kBert); },
               {dir, "keys 'bert.embeddings.LayerNorm.weight'", "and 'embeddings.LayerNorm.gamma'",
                "both map to parameter 'bert.embeddings.LayerNorm.weight'"});
}

TEST(ModelDir, ShardedWeightFiles) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  SafetensorsReader src(fixture("bert_qa/model.safetensors"));
  std::vector<std::vector<float>> data;
  data.reserve(src.tensors().size());
  std::vector<cpuft::StTensorOut> shard[2];
  nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
  const std::string names[2] = {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"};
  for (const auto& t : src.tensors()) {
    data.push_back(src.read_f32(t.name));
    int s = t.name.rfind("bert.encoder.layer.1.", 0) == 0 || t.name.rfind("qa_", 0) == 0;
    shard[s].push_back({t.name, t.shape, data.back().data()});
    index["weight_map"][t.name] = names[s];
  }
  cpuft::write_safetensors(dir + "/" + names[0], shard[0]);
  cpuft::write_safetensors(dir + "/" + names[1], shard[1]);
  cpuft::write_file_atomic(dir + "/model.safetensors.index.json", index.dump());
  EXPECT_EQ(cpuft::find_weight_files(dir), (std::vector<std::string>{dir + "/" + names[0], dir + "/" + names[1]}));
  WeightFiles c(dir, ModelFamily::kBert);
  EXPECT_EQ(c.tensors().size(), 39u);
  EXPECT_EQ(c.files().size(), 2u);
  EXPECT_EQ(c.find("qa_outputs.bias")->reader->path(), dir + "/" + names[1]);
  EXPECT_EQ(c.find("bert.embeddings.word_embeddings.weight")->reader->path(), dir + "/" + names[0]);

  const std::string index_path = dir + "/model.safetensors.index.json";
  index["weight_map"]["qa_outputs.bias"] = names[0];
  cpuft::write_file_atomic(index_path, index.dump());
  expect_error([&] { WeightFiles bad(dir, ModelFamily::kBert); },
               {index_path, "weight_map puts 'qa_outputs.bias' in " + names[0] + ", which holds no such tensor"});
  index["weight_map"]["qa_outputs.bias"] = "model-00003-of-00002.safetensors";
  cpuft::write_file_atomic(index_path, index.dump());
  expect_error([&] { cpuft::find_weight_files(dir); },
               {index_path, "names shard \"model-00003-of-00002.safetensors\", which is not in " + dir});
  index["weight_map"]["qa_outputs.bias"] = "../elsewhere.safetensors";
  cpuft::write_file_atomic(index_path, index.dump());
  expect_error([&] { cpuft::find_weight_files(dir); },
               {"weight_map.qa_outputs.bias is \"../elsewhere.safetensors\"; expected a file name inside the directory"});
  cpuft::write_file_atomic(index_path, R"({"weight_map": []})");
  expect_error([&] { cpuft::find_weight_files(dir); }, {index_path, "expected an object with a \"weight_map\" object"});
  cpuft::write_file_atomic(index_path, R"({"weight_map": {"a": 1}})");
  expect_error([&] { cpuft::find_weight_files(dir); }, {"weight_map.a is 1; expected a file name"});
  cpuft::write_file_atomic(index_path, "{");
  expect_error([&] { cpuft::find_weight_files(dir); }, {index_path, "not valid JSON"});
}
