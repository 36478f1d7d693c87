// Exact resume: training 2k steps in one go and training k steps, stopping, and resuming from
// checkpoint-k give bitwise the same model.safetensors (docs/parity.md, Files). Dropout is on (the
// config's default 0.1) and the resumed part crosses an epoch boundary, so the data position, the
// dropout stream, the AdamW moments and the schedule must all be restored.
#include "cli/e2e_fixture.h"

namespace cpuft_e2e {
namespace {

class Resume : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    model_ = tiny_model();
    train_ = squad_file("train.json", 48, 1);  // 6 batches of 8 per epoch
  }

  Args run_flags(const std::string& out, const Args& extra) {
    return concat(concat({"train", "--model_name_or_path", model_, "--train_file", train_, "--output_dir", out,
                          "--max_steps", "10", "--per_device_train_batch_size", "8", "--learning_rate", "1e-3",
                          "--logging_steps", "2"},
                         tiny_flags()),
                  extra);
  }

  // Runs 10 steps uninterrupted into A (checkpoints every `save_steps`), copies A's checkpoints
  // `copy` into a fresh B and resumes B with `resume` (a path or "last").
  void check_resume(const Args& extra, const std::string& save_steps, const std::vector<std::string>& copy,
                    const std::string& resume, const std::string& resumed_from) {
    const std::string a = path("A"), b = path("B");
    ProcessResult ra = cpuft(run_flags(a, concat(extra, {"--save_steps", save_steps})));
    ASSERT_EQ(ra.status, 0) << ra.err;
    fs::create_directories(b);
    for (const std::string& ck : copy) fs::copy(a + "/" + ck, b + "/" + ck, fs::copy_options::recursive);
    const std::string resume_arg = resume == "last" ? resume : b + "/" + resume;
    ProcessResult rb = cpuft(run_flags(b, concat(extra, {"--save_steps", save_steps, "--resume_from_checkpoint",
                                                         resume_arg})));
    ASSERT_EQ(rb.status, 0) << rb.err;
    EXPECT_NE(rb.err.find("resumed from " + b + "/" + resumed_from), std::string::npos) << rb.err;
    // B trained only the steps after the checkpoint: it logs step 10 but not step 2.
    EXPECT_EQ(rb.err.find("\"step\":2}"), std::string::npos) << rb.err;
    EXPECT_NE(rb.err.find("\"step\":10}"), std::string::npos) << rb.err;

    const std::string model_a = slurp(a + "/model.safetensors");
    ASSERT_GT(model_a.size(), 1000u);
    EXPECT_TRUE(model_a == slurp(b + "/model.safetensors")) << "final weights differ after resuming";
    EXPECT_FALSE(model_a == slurp(model_ + "/model.safetensors")) << "training changed nothing";
    // The logged losses, gradient norms and learning rates continue exactly too.
    nlohmann::json log_a = read_json(a + "/trainer_state.json").at("log_history");
    nlohmann::json log_b = read_json(b + "/trainer_state.json").at("log_history");
    ASSERT_EQ(log_a.size(), 6u);
    ASSERT_EQ(log_b.size(), 6u);
    for (size_t i = 0; i < 5; ++i) EXPECT_EQ(log_a[i], log_b[i]) << "log_history[" << i << "]";
    EXPECT_EQ(log_a[5].at("train_loss"), log_b[5].at("train_loss"));
  }

  std::string model_, train_;
};

TEST_F(Resume, FromACopiedCheckpointIsBitwiseExact) {
  check_resume({}, "4", {"checkpoint-4"}, "checkpoint-4", "checkpoint-4");
}

TEST_F(Resume, WithGradientAccumulationIsBitwiseExact) {
  // 3 optimizer steps per epoch; checkpoint-4 sits in the middle of epoch 2.
  check_resume({"--gradient_accumulation_steps", "2"}, "4", {"checkpoint-4"}, "checkpoint-4", "checkpoint-4");
}

TEST_F(Resume, WithBf16IsBitwiseExact) {
  check_resume({"--bf16"}, "4", {"checkpoint-4"}, "checkpoint-4", "checkpoint-4");
}

TEST_F(Resume, WithDynamicPaddingAndLengthGroupsIsBitwiseExact) {
  check_resume({"--pad_to_max_length", "false", "--group_by_length"}, "4", {"checkpoint-4"}, "checkpoint-4",
               "checkpoint-4");
}

TEST_F(Resume, LastPicksTheNewestCompleteCheckpoint) {
  check_resume({}, "2", {"checkpoint-2", "checkpoint-6"}, "last", "checkpoint-6");
}

TEST_F(Resume, AnOutputDirWithACheckpointResumesWithoutBeingAsked) {
  // run_qa's rule: a non-empty output_dir holding a checkpoint is resumed, not refused.
  const std::string a = path("A"), b = path("B");
  ProcessResult ra = cpuft(run_flags(a, {"--save_steps", "4"}));
  ASSERT_EQ(ra.status, 0) << ra.err;
  fs::create_directories(b);
  fs::copy(a + "/checkpoint-8", b + "/checkpoint-8", fs::copy_options::recursive);
  ProcessResult rb = cpuft(run_flags(b, {"--save_steps", "4"}));
  ASSERT_EQ(rb.status, 0) << rb.err;
  EXPECT_NE(rb.err.find("resuming training at " + b + "/checkpoint-8"), std::string::npos) << rb.err;
  EXPECT_TRUE(slurp(a + "/model.safetensors") == slurp(b + "/model.safetensors"));
}

// A changed batch size jumped silently to another position in the data; any other changed flag was
// reported only as "flags differ". Now the first is refused before anything loads, the second named.
TEST_F(Resume, ChangedFlagsAreRefusedOrNamed) {
  const std::string a = path("A");
  ProcessResult ra = cpuft(run_flags(a, {"--save_steps", "4", "--max_steps", "4"}));
  ASSERT_EQ(ra.status, 0) << ra.err;
  const std::string ck = a + "/checkpoint-4";
  ProcessResult batch = cpuft(run_flags(path("B"), {"--resume_from_checkpoint", ck, "--per_device_train_batch_size", "4"}));
  EXPECT_ONE_LINE_ERROR(batch, ck + ": the global batch (--per_device_train_batch_size x processes) is 4 x 1 = 4 but the "
                                    "checkpoint was written with 8 x 1 = 8");
  EXPECT_FALSE(fs::exists(path("B/model.safetensors")));
  ProcessResult lr = cpuft(run_flags(path("C"), {"--resume_from_checkpoint", ck, "--learning_rate", "5e-4"}));
  ASSERT_EQ(lr.status, 0) << lr.err;
  EXPECT_NE(lr.err.find("cpuft: warning: " + ck + ": resuming with changed flags: --learning_rate 0.001 -> 0.0005, "
                        "--max_steps 4 -> 10"),
            std::string::npos)
      << lr.err;
}

// A checkpoint that is not complete (here: a run killed while another removed its files left only
// cpuft_state.json) was picked by 'last' and failed, or worse; now 'last' skips it, saying why, and
// resumes from the newest complete one; named, it is refused.
TEST_F(Resume, LastSkipsACheckpointThatIsNotComplete) {
  const std::string a = path("A"), b = path("B");
  ProcessResult ra = cpuft(run_flags(a, {"--save_steps", "2"}));
  ASSERT_EQ(ra.status, 0) << ra.err;
  fs::create_directories(b);
  for (const char* ck : {"checkpoint-2", "checkpoint-6"}) fs::copy(a + "/" + ck, b + "/" + ck, fs::copy_options::recursive);
  fs::create_directories(b + "/checkpoint-8");
  fs::copy_file(a + "/checkpoint-8/cpuft_state.json", b + "/checkpoint-8/cpuft_state.json");
  fs::remove(b + "/checkpoint-6/optimizer.safetensors");
  ProcessResult named = cpuft(run_flags(b, {"--save_steps", "2", "--resume_from_checkpoint", b + "/checkpoint-8"}));
  EXPECT_ONE_LINE_ERROR(named, b + "/checkpoint-8/config.json: missing; the checkpoint is incomplete");
  ProcessResult rb = cpuft(run_flags(b, {"--save_steps", "2", "--resume_from_checkpoint", "last"}));
  ASSERT_EQ(rb.status, 0) << rb.err;
  EXPECT_NE(rb.err.find("cpuft: warning: skipping " + b + "/checkpoint-8: " + b +
                        "/checkpoint-8/config.json: missing; the checkpoint is incomplete"),
            std::string::npos)
      << rb.err;
  EXPECT_NE(rb.err.find("skipping " + b + "/checkpoint-6: " + b + "/checkpoint-6/optimizer.safetensors: missing"),
            std::string::npos)
      << rb.err;
  EXPECT_NE(rb.err.find("resumed from " + b + "/checkpoint-2"), std::string::npos) << rb.err;
  EXPECT_TRUE(slurp(a + "/model.safetensors") == slurp(b + "/model.safetensors"));
}

// kill -9 at any moment of a run that checkpoints every step (mid-save included), then train into the
// same directory again (which resumes from its last complete checkpoint) until the run is done: the
// final model is byte for byte the uninterrupted run's. Each restart takes over the killed run's lock
// and removes its leftovers.
TEST_F(Resume, KilledAtAnyMomentResumesToTheSameModel) {
  ProcessResult ra = cpuft(run_flags(path("A"), {"--save_steps", "1"}));
  ASSERT_EQ(ra.status, 0) << ra.err;
  const std::string b = path("B");
  std::mt19937 rng(7);
  int kills = 0;
  for (int run = 0; run < 30 && !fs::exists(b + "/model.safetensors"); ++run) {
    CpuftProcess p(run_flags(b, {"--save_steps", "1"}), dir_);
    if (kills < 8 && p.wait_for_stderr("\"step\":", 120)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 40));
      p.signal(SIGKILL);
    }
    ProcessResult r = p.wait(120);
    if (r.status == 128 + SIGKILL) {
      ++kills;
      continue;
    }
    ASSERT_EQ(r.status, 0) << r.err;
  }
  std::printf("killed %d times with -9, then finished\n", kills);
  EXPECT_GT(kills, 0);
  EXPECT_TRUE(slurp(path("A/model.safetensors")) == slurp(b + "/model.safetensors"))
      << "after " << kills << " kills the model differs";
  EXPECT_TRUE(leftover_temporaries(b).empty());
}

class ResumeRefuses : public Resume {
 protected:
  // checkpoint-4 of a 4-step run into A (4 of the 6 batches of epoch 0).
  std::string checkpoint() {
    ProcessResult ra = cpuft(run_flags(path("A"), {"--save_steps", "4", "--max_steps", "4"}));
    EXPECT_EQ(ra.status, 0) << ra.err;
    return path("A/checkpoint-4");
  }
  // Resumes from `ck` into a fresh directory with `extra` flags.
  ProcessResult resume(const std::string& ck, const Args& extra = {}) {
    static int n = 0;
    return cpuft(run_flags(path("resumed-" + std::to_string(++n)), concat({"--resume_from_checkpoint", ck}, extra)));
  }
};

// A checkpoint of a hidden-32 model resumed under a hidden-64 one trained on silently and wrote the
// other model.
TEST_F(ResumeRefuses, ACheckpointOfAnotherModel) {
  const std::string config = path("hidden32.json");
  write_text(config, R"({"model_type": "bert", "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
                         "intermediate_size": 64, "vocab_size": 30522, "max_position_embeddings": 128,
                         "type_vocab_size": 2})");
  ProcessResult init = cpuft({"init-model", "--config", config, "--tokenizer", CPUFT_FIXTURES "/text", "--output_dir",
                              path("small"), "--seed", "3"});
  ASSERT_EQ(init.status, 0) << init.err;
  ProcessResult small = cpuft(concat(concat({"train", "--model_name_or_path", path("small"), "--train_file", train_,
                                             "--output_dir", path("S"), "--max_steps", "2", "--save_steps", "2",
                                             "--per_device_train_batch_size", "8"},
                                            tiny_flags()),
                                     {}));
  ASSERT_EQ(small.status, 0) << small.err;
  const std::string ck = path("S/checkpoint-2");
  ProcessResult r = resume(ck);  // --model_name_or_path: the hidden-64 model
  EXPECT_ONE_LINE_ERROR(r, ck + "/cpuft_state.json: made_from.model.hidden_size: found 32, expected 64 (" + model_ +
                               "/config.json); resume with the model it was trained from");
}

// Edited counters in cpuft_state.json were accepted and changed the result.
TEST_F(ResumeRefuses, CountersThatDoNotFitThePlan) {
  const std::string ck = checkpoint();
  const std::string state_file = ck + "/cpuft_state.json";
  const nlohmann::json state = read_json(state_file);
  auto edited = [&](const char* field, int64_t value) {
    nlohmann::json s = state;
    s[field] = value;
    write_text(state_file, s.dump(2));
  };
  const std::string at = " (global_step 4 with 6 steps of 1 of the 6 batches of an epoch); the checkpoint does not "
                         "belong to this run";
  edited("epoch", 1000000000000000000);
  EXPECT_ONE_LINE_ERROR(resume(ck), state_file + ": epoch: found 1000000000000000000, expected 0" + at);
  edited("batches_in_epoch", 1000000000000000000);
  EXPECT_ONE_LINE_ERROR(resume(ck), state_file + ": batches_in_epoch: found 1000000000000000000, expected 4" + at);
  edited("batches_in_epoch", 1);
  EXPECT_ONE_LINE_ERROR(resume(ck), state_file + ": batches_in_epoch: found 1, expected 4" + at);
  edited("global_step", 11);
  EXPECT_ONE_LINE_ERROR(resume(ck), "global_step");
  write_text(state_file, state.dump(2));
  ProcessResult ok = resume(ck);
  EXPECT_EQ(ok.status, 0) << ok.err;
}

// The same model, other training data: the checkpoint's position would be in another data set.
TEST_F(ResumeRefuses, ACheckpointOfOtherData) {
  const std::string ck = checkpoint();
  const std::string other = squad_file("other.json", 48, 9);  // as many windows, other questions
  ProcessResult r = cpuft(concat(concat({"train", "--model_name_or_path", model_, "--train_file", other,
                                         "--output_dir", path("O"), "--max_steps", "10",
                                         "--per_device_train_batch_size", "8", "--learning_rate", "1e-3",
                                         "--logging_steps", "2", "--resume_from_checkpoint", ck},
                                        tiny_flags()),
                                 {}));
  EXPECT_ONE_LINE_ERROR(r, ck + "/cpuft_state.json: made_from.data.features_xxh64: found ",
                        "(this run's --model_name_or_path, tokenizer and --train_file); the checkpoint does not "
                        "belong to this run");
}

}  // namespace
}  // namespace cpuft_e2e
