// Bad input to the cpuft program: each case ends with exit status 1 and one "cpuft: error:" line that
// names the culprit (flag, file, JSON path, value) - never a crash, a hang or a half-written file.
#include <functional>

#include "cli/e2e_fixture.h"

namespace cpuft_e2e {
namespace {

class BadInput : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    model_ = tiny_model();
    train_ = squad_file("train.json", 16, 1);
    out_ = path("out");
  }

  Args train_flags(const Args& extra) {
    return concat(concat({"train", "--model_name_or_path", model_, "--train_file", train_, "--output_dir", out_},
                         tiny_flags()),
                  extra);
  }

  // A copy of the tiny model whose model.safetensors is changed by `damage`.
  template <typename F>
  std::string damaged_model(const std::string& name, F damage) {
    const std::string dir = path(name);
    fs::copy(model_, dir, fs::copy_options::recursive);
    damage(dir + "/model.safetensors");
    return dir;
  }

  // A copy of a real checkpoint (checkpoint-2 of a 2-step run) in a fresh output directory.
  std::string checkpoint_copy() {
    ProcessResult r = cpuft(train_flags({"--max_steps", "2", "--save_steps", "2", "--per_device_train_batch_size",
                                         "4", "--output_dir", path("first")}));
    EXPECT_EQ(r.status, 0) << r.err;
    fs::create_directories(out_);
    fs::copy(path("first/checkpoint-2"), out_ + "/checkpoint-2", fs::copy_options::recursive);
    return out_ + "/checkpoint-2";
  }

  std::string model_, train_, out_;
};

TEST_F(BadInput, MisspeltFlagSuggestsTheClosest) {
  ProcessResult r = cpuft(train_flags({"--learning_rat", "1e-3"}));
  EXPECT_ONE_LINE_ERROR(r, "--learning_rat", "did you mean --learning_rate?");
  EXPECT_FALSE(fs::exists(out_));
}

TEST_F(BadInput, MissingModelDirectory) {
  ProcessResult r = cpuft(concat({"evaluate", "--output_dir", path("eval-out"),
                                  "--model_name_or_path", path("no-such-model"), "--validation_file",
                                  train_},
                                 tiny_flags()));
  EXPECT_ONE_LINE_ERROR(r, path("no-such-model"), "no such directory");
}

TEST_F(BadInput, TruncatedModelFile) {
  const std::string dir = damaged_model("truncated", [](const std::string& f) { fs::resize_file(f, fs::file_size(f) / 2); });
  ProcessResult r = cpuft(train_flags({"--model_name_or_path", dir}));
  EXPECT_ONE_LINE_ERROR(r, dir + "/model.safetensors", "run past");
  EXPECT_FALSE(fs::exists(out_ + "/model.safetensors"));
}

TEST_F(BadInput, CorruptModelHeader) {
  const std::string dir = damaged_model("corrupt", [](const std::string& f) {
    std::fstream s(f, std::ios::in | std::ios::out | std::ios::binary);
    s.write("\xff\xff\xff\xff\xff\xff\xff\x7f", 8);  // header length 2^63 - 1
  });
  ProcessResult r = cpuft(concat({"evaluate", "--output_dir", path("eval-out"),
                                  "--model_name_or_path", dir, "--validation_file", train_}, tiny_flags()));
  EXPECT_ONE_LINE_ERROR(r, dir + "/model.safetensors", "header length 9223372036854775807");
}

TEST_F(BadInput, MalformedSquadNamesTheJsonPath) {
  nlohmann::json d = marker_squad(4, 2);
  d["data"][2]["paragraphs"][0]["qas"][0]["answers"][0]["answer_start"] = "12";
  const std::string bad = path("bad.json");
  write_text(bad, d.dump());
  ProcessResult r = cpuft(train_flags({"--train_file", bad}));
  EXPECT_ONE_LINE_ERROR(r, bad, "data[2].paragraphs[0].qas[0].answers[0].answer_start", "found string \"12\"",
                        "expected an integer");
  EXPECT_FALSE(fs::exists(out_ + "/model.safetensors"));
}

TEST_F(BadInput, TruncatedSquadJson) {
  const std::string bad = path("truncated.json");
  write_text(bad, marker_squad(4, 2).dump().substr(0, 300));
  ProcessResult r = cpuft(concat({"evaluate", "--output_dir", path("eval-out"),
                                  "--model_name_or_path", model_, "--validation_file", bad}, tiny_flags()));
  EXPECT_ONE_LINE_ERROR(r, bad, "not valid JSON");
}

TEST_F(BadInput, DatasetNameWithoutFilesExplainsWhatToPass) {
  ProcessResult r = cpuft(concat({"train", "--model_name_or_path", model_, "--dataset_name", "squad", "--do_train",
                                  "--output_dir", out_},
                                 tiny_flags()));
  EXPECT_ONE_LINE_ERROR(r, "--dataset_name", "--train_file", "--validation_file");
}

TEST_F(BadInput, NonEmptyOutputDirNeedsOverwrite) {
  fs::create_directories(out_);
  write_text(out_ + "/notes.txt", "mine");
  ProcessResult r = cpuft(train_flags({}));
  EXPECT_ONE_LINE_ERROR(r, out_, "not empty", "--overwrite_output_dir");
  // Nothing was written into it.
  EXPECT_EQ(std::distance(fs::directory_iterator(out_), fs::directory_iterator()), 1);
  EXPECT_EQ(slurp(out_ + "/notes.txt"), "mine");
}

TEST_F(BadInput, OutputDirBlockedByAFile) {
  write_text(out_, "a file, not a directory");
  ProcessResult r = cpuft(train_flags({"--do_train", "--overwrite_output_dir"}));
  EXPECT_ONE_LINE_ERROR(r, "--output_dir", "cannot create directory", out_);
  EXPECT_EQ(slurp(out_), "a file, not a directory");
}

TEST_F(BadInput, InitModelOutputDirBlockedByAFile) {
  write_text(out_, "x");
  ProcessResult r = cpuft({"init-model", "--config", CPUFT_FIXTURES "/cli/tiny_bert_config.json", "--tokenizer",
                           CPUFT_FIXTURES "/text", "--output_dir", out_ + "/model"});
  EXPECT_ONE_LINE_ERROR(r, "--output_dir", "cannot create directory", out_);
}

// init-model wrote random weights over a trained model directory without a word.
TEST_F(BadInput, InitModelRefusesANonEmptyDirectory) {
  const std::string before = slurp(model_ + "/model.safetensors");
  ProcessResult r = cpuft({"init-model", "--config", CPUFT_FIXTURES "/cli/tiny_bert_config.json", "--tokenizer",
                           CPUFT_FIXTURES "/text", "--output_dir", model_, "--seed", "7"});
  EXPECT_ONE_LINE_ERROR(r, "--output_dir: " + model_ + " already exists and is not empty");
  EXPECT_TRUE(slurp(model_ + "/model.safetensors") == before);
}

// Errors about one example named the example but not the file it came from.
TEST_F(BadInput, FeatureErrorsNameTheFile) {
  nlohmann::json d = marker_squad(4, 2);
  d["data"][1]["paragraphs"][0]["context"] = "";
  d["data"][1]["paragraphs"][0]["qas"][0]["answers"][0]["answer_start"] = 0;
  const std::string bad = path("empty-context.json");
  write_text(bad, d.dump());
  ProcessResult r = cpuft(train_flags({"--train_file", bad}));
  EXPECT_ONE_LINE_ERROR(r, bad + ": example 's2-1': the context has no tokens");
}

TEST_F(BadInput, InitModelSeedMustBeANumber) {
  ProcessResult r = cpuft({"init-model", "--config", CPUFT_FIXTURES "/cli/tiny_bert_config.json", "--tokenizer",
                           CPUFT_FIXTURES "/text", "--output_dir", path("m"), "--seed", "x1"});
  EXPECT_ONE_LINE_ERROR(r, "--seed: found 'x1', expected an integer in [0, 2147483647]");
  EXPECT_FALSE(fs::exists(path("m")));
}

TEST_F(BadInput, Fp16IsRefusedWithTheCpuAlternative) {
  ProcessResult r = cpuft(train_flags({"--fp16"}));
  EXPECT_ONE_LINE_ERROR(r, "--fp16", "--bf16");
}

TEST_F(BadInput, ResumeFromAMissingCheckpoint) {
  ProcessResult r = cpuft(train_flags({"--resume_from_checkpoint", path("nothing")}));
  EXPECT_ONE_LINE_ERROR(r, "--resume_from_checkpoint", path("nothing"), "cpuft_state.json");
}

TEST_F(BadInput, ResumeFromACorruptCheckpoint) {
  const std::string ck = checkpoint_copy();
  // Each damage is detected on its own; the checkpoint copy is restored between them.
  struct Damage {
    const char* file;
    std::function<void(const std::string&)> apply;
    const char* says;
  };
  const std::vector<Damage> damages = {
      {"optimizer.safetensors", [](const std::string& f) { fs::resize_file(f, 1000); },
       ": 1000 bytes, expected "},
      {"model.safetensors", [](const std::string& f) { fs::resize_file(f, fs::file_size(f) - 4); },
       "(cpuft_state.json); the checkpoint is incomplete"},
      {"cpuft_state.json", [](const std::string& f) { write_text(f, "{\"format_version\": 2, \"global_step\": \"x\"}"); },
       "global_step: found \"x\", expected an integer"},
      {"trainer_state.json", [](const std::string& f) { write_text(f, "{"); }, ": 1 bytes, expected "},
  };
  for (const Damage& d : damages) {
    SCOPED_TRACE(d.file);
    const std::string file = ck + "/" + d.file;
    const std::string good = slurp(file);
    d.apply(file);
    ProcessResult r = cpuft(train_flags({"--max_steps", "2", "--per_device_train_batch_size", "4",
                                         "--resume_from_checkpoint", ck}));
    EXPECT_ONE_LINE_ERROR(r, ck + "/" + d.file, d.says);
    EXPECT_FALSE(fs::exists(out_ + "/model.safetensors")) << "a corrupt checkpoint was used";
    write_text(file, good);
  }
}

TEST_F(BadInput, WindowLongerThanTheModelNamesTheFlag) {
  // The default --max_seq_length 384 exceeds the tiny model's 128 positions, in every command.
  const std::vector<Args> runs = {
      {"train", "--model_name_or_path", model_, "--train_file", train_, "--output_dir", out_},
      {"evaluate", "--output_dir", path("eval-out"), "--model_name_or_path", model_, "--validation_file", train_},
      {"predict", "--model_name_or_path", model_, "--question", "q", "--context", "c"}};
  for (const Args& args : runs) {
    SCOPED_TRACE(args[0]);
    EXPECT_ONE_LINE_ERROR(cpuft(concat(args, {"--threads", "1"})), "--max_seq_length: found 384",
                          "max_position_embeddings (128)");
  }
}

TEST_F(BadInput, NonFiniteLossStopsNamingTheStep) {
  // --learning_rate stops at 10, where AdamW steps cannot blow a model up within a few steps; weights
  // of 1e30 (finite, so loaded without a warning) overflow the first forward pass instead.
  const std::string dir = damaged_model("huge", [](const std::string& f) {
    edit_weights(f, [](const std::string& name, std::vector<float>& values) {
      if (name == "bert.encoder.layer.0.intermediate.dense.weight" || name == "bert.encoder.layer.0.output.dense.weight")
        for (float& v : values) v = 1e30f;
    });
  });
  ProcessResult r = cpuft(train_flags({"--model_name_or_path", dir, "--max_steps", "20", "--per_device_train_batch_size",
                                       "4", "--save_steps", "1", "--logging_steps", "1"}));
  EXPECT_ONE_LINE_ERROR(r, "step 1: the ", "stopping (before any update: the weights loaded give non-finite values)");
  const std::string line = error_line(r);
  EXPECT_TRUE(line.find("loss is") != std::string::npos || line.find("gradient norm is") != std::string::npos)
      << line;
  // It stopped at once: no step was logged and nothing was written.
  EXPECT_EQ(r.err.find("\"step\":1}"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out_ + "/model.safetensors"));
  EXPECT_FALSE(fs::exists(out_ + "/trainer_state.json"));
  EXPECT_FALSE(fs::exists(out_ + "/checkpoint-1"));
  EXPECT_TRUE(leftover_temporaries(out_).empty());
}

}  // namespace
}  // namespace cpuft_e2e
