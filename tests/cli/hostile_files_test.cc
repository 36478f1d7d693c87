// Hostile files given to the cpuft program: JSON nested beyond any real file, paths that are not
// regular files (a device that never ends, a FIFO that would block, a directory), results files that
// the program would re-write. Each ends with one "cpuft: error:" line naming the file: never a crash,
// a hang or runaway memory.
#include <sys/stat.h>

#include "cli/e2e_fixture.h"

namespace cpuft_e2e {
namespace {

const std::string kDeep = std::string(100000, '[') + std::string(100000, ']');

class HostileFiles : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    model_ = tiny_model();
    train_ = squad_file("train.json", 8, 1);
  }

  Args train_flags(const Args& extra) {
    return concat(concat({"train", "--model_name_or_path", model_, "--train_file", train_, "--output_dir",
                          path("out"), "--max_steps", "1", "--per_device_train_batch_size", "4"},
                         tiny_flags()),
                  extra);
  }

  // A copy of the tiny model with `file` replaced by `text`.
  std::string model_with(const std::string& file, const std::string& text) {
    const std::string dir = path("model-" + std::to_string(++copies_));
    fs::copy(model_, dir, fs::copy_options::recursive);
    write_text(dir + "/" + file, text);
    return dir;
  }

  std::string model_, train_;
  int copies_ = 0;
};

// config.json's model_type nested 100,000 deep: the error message printing it crashed (SIGSEGV).
TEST_F(HostileFiles, DeeplyNestedConfigValue) {
  const std::string dir = model_with("config.json", "{\"model_type\": " + kDeep + "}");
  ProcessResult r = cpuft(train_flags({"--model_name_or_path", dir}));
  EXPECT_ONE_LINE_ERROR(r, dir + "/config.json: nested deeper than 64 levels at byte 79");
  EXPECT_FALSE(fs::exists(path("out/model.safetensors")));
}

TEST_F(HostileFiles, DeeplyNestedTokenizerAndSquadValues) {
  const std::string dir = model_with("tokenizer.json", "{\"model\": " + kDeep + "}");
  EXPECT_ONE_LINE_ERROR(cpuft(train_flags({"--model_name_or_path", dir})), dir + "/tokenizer.json: nested deeper than 64");
  const std::string squad = path("deep.json");
  write_text(squad, "{\"version\": \"1.1\", \"data\": [{\"title\": " + kDeep + "}]}");
  EXPECT_ONE_LINE_ERROR(cpuft(train_flags({"--train_file", squad})), squad + ": nested deeper than 64");
}

// Data paths that are not regular files: /dev/zero grew to 4 GB before bad_alloc, a FIFO hung forever,
// a directory read as "unexpected end of input".
TEST_F(HostileFiles, DataPathsThatAreNotRegularFiles) {
  ASSERT_EQ(::mkfifo(path("fifo.json").c_str(), 0600), 0);
  fs::create_directories(path("dir.json"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/dev/zero", "/dev/zero: is a character device, expected a regular file"},
      {path("fifo.json"), path("fifo.json") + ": is a FIFO, expected a regular file"},
      {path("dir.json"), path("dir.json") + ": is a directory, expected a regular file"},
  };
  for (const auto& [file, says] : cases) {
    SCOPED_TRACE(file);
    ProcessResult r = cpuft(train_flags({"--train_file", file}), 60);
    EXPECT_FALSE(r.timed_out);
    EXPECT_ONE_LINE_ERROR(r, says);
  }
  const std::string cfg_dir = path("model-dev");
  fs::copy(model_, cfg_dir, fs::copy_options::recursive);
  fs::remove(cfg_dir + "/config.json");
  fs::create_symlink("/dev/zero", cfg_dir + "/config.json");
  EXPECT_ONE_LINE_ERROR(cpuft(train_flags({"--model_name_or_path", cfg_dir})),
                        cfg_dir + "/config.json: is a character device, expected a regular file");
}

// model.safetensors that is a directory was reported as "no model.safetensors".
TEST_F(HostileFiles, WeightsThatAreNotARegularFile) {
  const std::string dir = path("model-dir-weights");
  fs::copy(model_, dir, fs::copy_options::recursive);
  fs::remove(dir + "/model.safetensors");
  fs::create_directories(dir + "/model.safetensors");
  EXPECT_ONE_LINE_ERROR(cpuft(train_flags({"--model_name_or_path", dir})),
                        dir + "/model.safetensors: is a directory, expected a regular file");
}

// A nested value in the model directory's all_results.json (evaluate without --output_dir writes
// there) was merged and re-written level by level: gigabytes, then SIGSEGV.
TEST_F(HostileFiles, NestedAllResultsIsNotRewritten) {
  const std::string dir = model_with("all_results.json", "{\"x\": " + kDeep + "}");
  ProcessResult r = cpuft(
      concat({"evaluate", "--output_dir", dir,
              "--model_name_or_path", dir, "--validation_file", train_}, tiny_flags()));
  EXPECT_ONE_LINE_ERROR(r, dir + "/all_results.json: nested deeper than 64", "remove it");
  EXPECT_EQ(fs::file_size(dir + "/all_results.json"), 6 + kDeep.size() + 1);
  EXPECT_TRUE(leftover_temporaries(dir).empty());
}

// NaN / infinite weights loaded silently; now one warning names the tensor (the run goes on: a model
// may be loaded only to be inspected or re-initialised).
TEST_F(HostileFiles, NonFiniteWeightsAreNamed) {
  const std::string dir = path("model-nan");
  fs::copy(model_, dir, fs::copy_options::recursive);
  const std::string file = dir + "/model.safetensors";
  edit_weights(file, [](const std::string& name, std::vector<float>& values) {
    if (name == "bert.encoder.layer.1.output.dense.weight") values[3] = NAN, values[5] = INFINITY;
  });
  ProcessResult r = cpuft(concat({"evaluate", "--output_dir", path("eval-out"),
                                  "--model_name_or_path", dir, "--validation_file", train_}, tiny_flags()));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("cpuft: warning: " + file + ": tensor bert.encoder.layer.1.output.dense.weight holds 2 NaN or "
                       "infinite value(s)"),
            std::string::npos)
      << r.err;
}

// Token ids beyond config.json's vocab_size were caught at the first batch, naming neither file.
TEST_F(HostileFiles, TokenizerLargerThanTheModelsVocabulary) {
  const std::string tok = path("big-tokenizer");
  fs::create_directories(tok);
  write_text(tok + "/vocab.txt", slurp(CPUFT_FIXTURES "/text/vocab.txt") + "extra1\nextra2\n");
  ProcessResult r = cpuft(concat({"evaluate", "--output_dir", path("eval-out"),
                                  "--model_name_or_path", model_, "--tokenizer_name", tok,
                                  "--validation_file", train_},
                                 tiny_flags()));
  EXPECT_ONE_LINE_ERROR(r, tok + ": the tokenizer has token ids up to 30523 but " + model_ +
                               "/config.json has vocab_size 30522");
}

// A 50 MB question took 2.1 GB (about 40 times the input) to tokenise before failing as too long for
// any window; only the tokens that could fit are made now, so it fails the same way in a fraction of
// that (here under a 1.5 GB address space).
TEST_F(HostileFiles, HugeQuestionFailsWithoutTokenisingItAll) {
  auto question_of = [](size_t bytes) {
    std::string question;
    question.reserve(bytes);
    while (question.size() < bytes) question += "why ";
    return nlohmann::json({{"question", question}, {"context", "the red apple"}}).dump() + "\n";
  };
  RunOptions small;
  small.address_space_limit = uint64_t{1500} << 20;
  // 3.5 MiB of question, within the line limit: tokenised only as far as a window can hold.
  const std::string input = path("long.jsonl");
  write_text(input, question_of(7u << 19));
  ProcessResult r = cpuft_with(concat({"predict", "--model_name_or_path", model_, "--input", input}, tiny_flags()), small);
  EXPECT_ONE_LINE_ERROR(r, input + ": example '0': the question has more than 61 tokens");
  // 50 MB: over the line limit, refused before it is even read whole.
  const std::string huge = path("huge.jsonl");
  write_text(huge, question_of(50u << 20));
  ProcessResult h = cpuft_with(concat({"predict", "--model_name_or_path", model_, "--input", huge}, tiny_flags()), small);
  EXPECT_ONE_LINE_ERROR(h, huge + ":1: line longer than 4.0 MiB");
}

// `cpuft cluster-check --hostfile` with a line ssh reads as an option: the command ran through ssh.
// Now the hostfile is refused before any host is contacted.
TEST_F(HostileFiles, HostfileOptionInjection) {
  const std::string hosts = path("hosts");
  write_text(hosts, "-oProxyCommand=touch${IFS}" + path("PWNED") + "\n");
  ProcessResult r = cpuft({"cluster-check", "--hostfile", hosts, "--timeout", "2"});
  EXPECT_ONE_LINE_ERROR(r, hosts + ":1: host name '-oProxyCommand=touch${IFS}", "is not valid");
  EXPECT_FALSE(fs::exists(path("PWNED")));
}

}  // namespace
}  // namespace cpuft_e2e
