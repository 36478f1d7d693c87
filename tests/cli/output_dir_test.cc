// The output directory of `cpuft train --do_train --do_eval` holds what the Hugging Face Trainer and
// run_qa.py write, with checkpoint-N/ every --save_steps and --save_total_limit honoured.
#include <signal.h>
#include <unistd.h>

#include <set>

#include "cli/e2e_fixture.h"
#include "cpuft/util/dir_lock.h"

namespace cpuft_e2e {
namespace {

using OutputDir = E2eTest;

std::set<std::string> names_in(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

TEST_F(OutputDir, HoldsTheTrainerFilesAndRotatesCheckpoints) {
  const std::string model = tiny_model();
  const std::string train = squad_file("train.json", 64, 1);
  const std::string dev = squad_file("dev.json", 12, 2);
  const std::string out = path("out");
  // 64 windows in batches of 8: 8 steps per epoch, so 12 steps end inside epoch 2.
  ProcessResult r = cpuft(concat({"train", "--model_name_or_path", model, "--train_file", train, "--validation_file",
                                  dev, "--do_train", "--do_eval", "--output_dir", out, "--max_steps", "12",
                                  "--per_device_train_batch_size", "8", "--logging_steps", "3", "--save_steps", "4",
                                  "--save_total_limit", "2"},
                                 tiny_flags()));
  ASSERT_EQ(r.status, 0) << r.err;

  const std::set<std::string> expected = {
      "config.json",       "model.safetensors",     "tokenizer.json",       "tokenizer_config.json",
      "vocab.txt",         "trainer_state.json",    "train_results.json",   "eval_results.json",
      "all_results.json",  "eval_predictions.json", "eval_nbest_predictions.json",
      "checkpoint-8",      "checkpoint-12",         "training_curves.svg"};
  EXPECT_EQ(names_in(out), expected) << "checkpoint-4 must have been deleted by --save_total_limit 2";
  for (const char* ck : {"checkpoint-8", "checkpoint-12"}) {
    const std::set<std::string> files = names_in(out + "/" + ck);
    for (const char* f : {"config.json", "model.safetensors", "optimizer.safetensors", "trainer_state.json",
                          "cpuft_state.json", "vocab.txt"})
      EXPECT_TRUE(files.count(f)) << ck << " lacks " << f;
  }
  EXPECT_EQ(read_json(out + "/checkpoint-8/trainer_state.json").at("global_step"), 8);

  // log_history: a record every 3 steps, then the train summary, as the Trainer writes them.
  const nlohmann::json state = read_json(out + "/trainer_state.json");
  EXPECT_EQ(state.at("global_step"), 12);
  EXPECT_EQ(state.at("max_steps"), 12);
  EXPECT_EQ(state.at("logging_steps"), 3);
  EXPECT_EQ(state.at("save_steps"), 4);
  const nlohmann::json& log = state.at("log_history");
  ASSERT_EQ(log.size(), 5u) << log.dump();
  for (int i = 0; i < 4; ++i) {
    const nlohmann::json& e = log[static_cast<size_t>(i)];
    EXPECT_EQ(e.at("step"), 3 * (i + 1));
    EXPECT_DOUBLE_EQ(e.at("epoch").get<double>(), 3.0 * (i + 1) / 8.0);
    for (const char* k : {"loss", "grad_norm", "learning_rate"}) EXPECT_TRUE(e.at(k).is_number()) << e.dump();
    EXPECT_GT(e.at("loss").get<double>(), 0.0);
  }
  // Linear decay from the default 5e-5 to 0 at step 12; each entry holds the rate its step used, as
  // transformers 5.24's Trainer logs it (measured: step 3 -> lr(2), step 12 -> lr(11) = 5e-5 / 12).
  EXPECT_NEAR(log[0].at("learning_rate").get<double>(), 5e-5 * 10.0 / 12.0, 1e-15);
  EXPECT_NEAR(log[3].at("learning_rate").get<double>(), 5e-5 * 1.0 / 12.0, 1e-15);
  for (const char* k : {"train_loss", "train_runtime", "train_samples_per_second", "train_steps_per_second",
                        "total_flos"})
    EXPECT_TRUE(log[4].contains(k)) << "summary lacks " << k << ": " << log[4].dump();

  const nlohmann::json train_results = read_json(out + "/train_results.json");
  const nlohmann::json eval_results = read_json(out + "/eval_results.json");
  const nlohmann::json all = read_json(out + "/all_results.json");
  EXPECT_EQ(train_results.at("train_samples"), 64);
  EXPECT_DOUBLE_EQ(train_results.at("epoch").get<double>(), 1.5);
  EXPECT_EQ(eval_results.at("eval_samples"), 12);
  for (const char* k : {"eval_exact_match", "eval_f1", "epoch"}) EXPECT_TRUE(eval_results.contains(k)) << k;
  for (const char* k : {"train_loss", "eval_f1", "eval_exact_match", "train_runtime"})
    EXPECT_TRUE(all.contains(k)) << "all_results.json lacks " << k;

  // Predictions: one answer per dev question, and its n-best list.
  const nlohmann::json preds = read_json(out + "/eval_predictions.json");
  const nlohmann::json nbest = read_json(out + "/eval_nbest_predictions.json");
  ASSERT_EQ(preds.size(), 12u);
  ASSERT_EQ(nbest.size(), 12u);
  for (int i = 0; i < 12; ++i) {
    const std::string id = "s2-" + std::to_string(i);
    ASSERT_TRUE(preds.contains(id)) << id;
    EXPECT_TRUE(preds[id].is_string());
    ASSERT_TRUE(nbest.at(id).is_array());
    EXPECT_FALSE(nbest[id].empty());
    EXPECT_EQ(nbest[id][0].at("text"), preds[id]);
    for (const char* k : {"probability", "start_logit", "end_logit"}) EXPECT_TRUE(nbest[id][0].contains(k)) << k;
  }
  EXPECT_TRUE(leftover_temporaries(out).empty());
}

// A read-only --output_dir failed only when the first checkpoint or the model was written, after all
// the training; now nothing is trained.
TEST_F(OutputDir, ReadOnlyOutputDirIsFoundBeforeTraining) {
  const std::string model = tiny_model();
  const std::string out = path("read-only");
  fs::create_directories(out);
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec);
  RunOptions strict;
  strict.obey_permissions = true;
  ProcessResult r = cpuft_with(concat({"train", "--model_name_or_path", model, "--train_file",
                                       squad_file("train.json", 16, 1), "--output_dir", out, "--max_steps", "2",
                                       "--per_device_train_batch_size", "4"},
                                      tiny_flags()),
                               strict);
  fs::permissions(out, fs::perms::owner_all);
  EXPECT_ONE_LINE_ERROR(r, "--output_dir: " + out + ": not writable: Permission denied");
  EXPECT_EQ(r.err.find("Running training"), std::string::npos) << r.err;
}

// A kill during the first checkpoint save left checkpoint-1.tmp-PID/ (and an atomic write's
// temporary), and the rerun refused the directory as "not empty". An interrupted run's own leftovers
// are recognised and removed.
TEST_F(OutputDir, LeftoversOfAnInterruptedRunAreRemoved) {
  const std::string model = tiny_model();
  const std::string out = path("out");
  fs::create_directories(out + "/checkpoint-1.tmp-4242");
  write_text(out + "/checkpoint-1.tmp-4242/model.safetensors", "half");
  write_text(out + "/trainer_state.json.tmp-0123456789ab", "{");
  ProcessResult r = cpuft(concat({"train", "--model_name_or_path", model, "--train_file",
                                  squad_file("train.json", 16, 1), "--output_dir", out, "--max_steps", "2",
                                  "--per_device_train_batch_size", "4", "--save_strategy", "no"},
                                 tiny_flags()));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(out + "/checkpoint-1.tmp-4242"));
  EXPECT_FALSE(fs::exists(out + "/trainer_state.json.tmp-0123456789ab"));
  EXPECT_TRUE(fs::exists(out + "/model.safetensors"));
}

std::string this_host() {
  char h[256] = {0};
  ::gethostname(h, sizeof h - 1);
  return h;
}

class OneWriter : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    model_ = tiny_model();
    train_ = squad_file("train.json", 64, 1);
  }
  // 150 steps of 4 windows (~15 ms or more each) with a checkpoint every 10: the run is still going
  // when a second one has started.
  Args train_into(const std::string& out, const Args& extra = {}) {
    return concat(concat({"train", "--model_name_or_path", model_, "--train_file", train_, "--output_dir", out,
                          "--max_steps", "150", "--per_device_train_batch_size", "4", "--logging_steps", "1",
                          "--save_steps", "10"},
                         tiny_flags()),
                  extra);
  }
  std::string model_, train_;
};

// Two runs into one output directory, 0.2 s apart: the second removed the first one's temporary
// checkpoint and left checkpoint-2/ holding only cpuft_state.json while both exited 0. Now the second
// is refused before it writes anything, naming the first, which finishes untouched.
TEST_F(OneWriter, ASecondRunIntoTheSameDirectoryIsRefused) {
  const std::string out = path("out");
  CpuftProcess first(train_into(out), dir_);
  ASSERT_TRUE(first.wait_for_stderr("\"step\":1}", 120)) << first.stderr_so_far();
  ProcessResult second = cpuft(train_into(out, {"--overwrite_output_dir"}));
  EXPECT_ONE_LINE_ERROR(second, "--output_dir: " + out + ": in use by process " + std::to_string(first.pid()) +
                                    " on host " + this_host() + " (lock file " + out + "/.cpuft.lock)");
  ProcessResult r = first.wait(300);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(leftover_temporaries(out).empty());
  EXPECT_FALSE(fs::exists(out + "/.cpuft.lock")) << "released at exit";
  // Every checkpoint the first run left is complete: 'last' resumes from the newest.
  ProcessResult resumed = cpuft(train_into(out, {"--resume_from_checkpoint", "last", "--max_steps", "152"}));
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resumed from " + out + "/checkpoint-150 at step 150"), std::string::npos) << resumed.err;
}

// evaluate and predict --test_file write into their --output_dir too: one writer there as well.
TEST_F(OneWriter, EvaluateAndPredictIntoALockedDirectoryAreRefused) {
  const std::string out = path("busy");
  fs::create_directories(out);
  const cpuft::DirLock held(out);  // this test process is the writer
  const std::string owner = "--output_dir: " + out + ": in use by process " + std::to_string(::getpid());
  const std::string dev = squad_file("dev.json", 4, 2);
  ProcessResult ev = cpuft(concat({"evaluate", "--model_name_or_path", model_, "--validation_file", dev,
                                   "--output_dir", out}, tiny_flags()));
  EXPECT_ONE_LINE_ERROR(ev, owner);
  ProcessResult pr = cpuft(concat({"predict", "--model_name_or_path", model_, "--test_file", dev, "--output_dir", out},
                                  tiny_flags()));
  EXPECT_ONE_LINE_ERROR(pr, owner);
  EXPECT_EQ(names_in(out), std::set<std::string>{".cpuft.lock"}) << "nothing written";
}

// A run killed with -9 cannot release its lock: the file it leaves is stale, and the next run takes it
// over with a notice instead of refusing the directory for ever.
TEST_F(OneWriter, TheLockOfAKilledRunIsTakenOver) {
  const std::string out = path("out");
  CpuftProcess killed(train_into(out), dir_);
  ASSERT_TRUE(killed.wait_for_stderr("\"step\":1}", 120)) << killed.stderr_so_far();
  killed.signal(SIGKILL);
  killed.wait(60);
  ASSERT_TRUE(fs::exists(out + "/.cpuft.lock"));
  ProcessResult r = cpuft(train_into(out, {"--overwrite_output_dir", "--max_steps", "4"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("cpuft: notice: " + out + ": taking over the lock of process " + std::to_string(killed.pid()) +
                       " on host " + this_host() + ", which has ended"),
            std::string::npos)
      << r.err;
}

// Training into the model's own directory (with --overwrite_output_dir) overwrote the model it
// started from; quantize already refused the same. Refused however the directory is named.
TEST_F(OutputDir, TrainingIntoTheModelsOwnDirectoryIsRefused) {
  const std::string model = tiny_model();
  const std::string before = slurp(model + "/model.safetensors");
  fs::create_directory_symlink(model, path("link"));
  fs::create_directories(path("sub"));
  const std::string train = squad_file("train.json", 16, 1);
  for (const std::string& out : {model, path("link"), path("sub/../model"), model + "/"}) {
    SCOPED_TRACE(out);
    ProcessResult r = cpuft(concat({"train", "--model_name_or_path", model, "--train_file", train, "--do_train",
                                    "--output_dir", out, "--overwrite_output_dir", "--max_steps", "2",
                                    "--per_device_train_batch_size", "4"},
                                   tiny_flags()));
    EXPECT_ONE_LINE_ERROR(r, "--output_dir: " + out + " is the directory of --model_name_or_path " + model +
                                 "; training would overwrite the model it starts from");
  }
  EXPECT_TRUE(slurp(model + "/model.safetensors") == before);
  const std::set<std::string> names = names_in(model);
  EXPECT_FALSE(names.count("trainer_state.json") || names.count(".cpuft.lock")) << "nothing written into the model";
}

}  // namespace
}  // namespace cpuft_e2e
