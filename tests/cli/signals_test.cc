// SIGTERM (a reclaimed spot instance) and SIGINT (Ctrl-C) during training: cpuft finishes the step,
// writes a checkpoint, says how to resume and exits with 128 + signal within seconds; resuming then
// finishes the run (train/checkpoint.h).
#include <signal.h>

#include <chrono>

#include "cli/e2e_fixture.h"

namespace cpuft_e2e {
namespace {

class Signals : public E2eTest {
 protected:
  void stop_and_resume(int sig, int expected_status, const char* name) {
    const std::string model = tiny_model();
    const std::string train = squad_file("train.json", 64, 1);
    const std::string out = path("out");
    // 60 steps of ~15 ms or more each: the run is still early on when the signal arrives.
    const Args args = concat({"train", "--model_name_or_path", model, "--train_file", train, "--output_dir", out,
                              "--max_steps", "60", "--per_device_train_batch_size", "4", "--logging_steps", "1",
                              "--save_steps", "1000"},
                             tiny_flags());
    CpuftProcess p(args, dir_);
    ASSERT_TRUE(p.started());
    ASSERT_TRUE(p.wait_for_stderr("\"step\":1}", 120)) << p.stderr_so_far();
    const auto sent = std::chrono::steady_clock::now();
    p.signal(sig);
    ProcessResult r = p.wait(60);
    const double exit_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
    ASSERT_FALSE(r.timed_out) << r.err;
    EXPECT_EQ(r.status, expected_status) << r.err;
    EXPECT_LT(exit_s, 10.0) << "took too long to stop";
    std::printf("%s: exited %.2f s after the signal\n", name, exit_s);

    const std::string last = find_checkpoint(out);
    ASSERT_FALSE(last.empty()) << "no checkpoint written on " << name;
    const int64_t step = std::stoll(last.substr(last.rfind('-') + 1));
    EXPECT_GE(step, 1);
    EXPECT_LT(step, 60);
    EXPECT_NE(r.err.find("stopped by " + std::string(name) + " after step " + std::to_string(step)),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("--resume_from_checkpoint " + out + "/checkpoint-" + std::to_string(step)),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out + "/model.safetensors")) << "a stopped run must not write the final model";
    EXPECT_TRUE(leftover_temporaries(out).empty());

    ProcessResult resumed = cpuft(concat(args, {"--resume_from_checkpoint", "last"}));
    ASSERT_EQ(resumed.status, 0) << resumed.err;
    EXPECT_NE(resumed.err.find("at step " + std::to_string(step)), std::string::npos) << resumed.err;
    EXPECT_EQ(read_json(out + "/trainer_state.json").at("global_step"), 60);
    EXPECT_TRUE(fs::exists(out + "/model.safetensors"));
  }

  // The newest checkpoint-N/ directory of `out`, or "".
  static std::string find_checkpoint(const std::string& out) {
    std::string best;
    int64_t best_n = -1;
    for (const auto& e : fs::directory_iterator(out)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("checkpoint-", 0) != 0) continue;
      const int64_t n = std::stoll(name.substr(11));
      if (n > best_n) best_n = n, best = e.path().string();
    }
    return best;
  }
};

TEST_F(Signals, SigtermDuringTheLastStepKeepsTheTrainedModel) {
  // One step of 8 x 256 windows (gradient accumulation: the memory of 256) takes about 0.8 s on a
  // 2-core Zen 5 and several on a Zen 3: the signal, 200 ms after the line printed just before the loop
  // installs its handlers, lands inside it. (One micro-batch of 256 took only 0.1 s on Zen 5: the whole
  // run, evaluation included, could end before the signal.) The run is then complete, so the final
  // model must be written, not thrown away.
  const std::string model = tiny_model();
  const std::string train = squad_file("train.json", 2048, 1);
  const std::string dev = squad_file("dev.json", 4, 2);
  const std::string out = path("out");
  CpuftProcess p(concat({"train", "--model_name_or_path", model, "--train_file", train, "--validation_file", dev,
                         "--do_train", "--do_eval", "--output_dir", out, "--max_steps", "1",
                         "--per_device_train_batch_size", "256", "--gradient_accumulation_steps", "8"},
                        tiny_flags()),
                 dir_);
  ASSERT_TRUE(p.wait_for_stderr("Number of trainable parameters", 120)) << p.stderr_so_far();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  p.signal(SIGTERM);
  ProcessResult r = p.wait(60);
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.status, 143) << r.err;
  EXPECT_NE(r.err.find("stopped by SIGTERM after the last step; the model is written to " + out +
                       "; evaluation skipped"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::exists(out + "/model.safetensors"));
  EXPECT_EQ(read_json(out + "/trainer_state.json").at("global_step"), 1);
  EXPECT_FALSE(fs::exists(out + "/eval_results.json"));
}

TEST_F(Signals, SigtermDuringEvaluationEndsAtOnceWithTheModelKept) {
  // 3000 dev questions take seconds to evaluate; the trained model is already written by then.
  const std::string model = tiny_model();
  const std::string train = squad_file("train.json", 16, 1);
  const std::string dev = squad_file("dev.json", 3000, 2);
  const std::string out = path("out");
  CpuftProcess p(concat({"train", "--model_name_or_path", model, "--train_file", train, "--validation_file", dev,
                         "--do_train", "--do_eval", "--output_dir", out, "--max_steps", "2",
                         "--per_device_train_batch_size", "8"},
                        tiny_flags()),
                 dir_);
  ASSERT_TRUE(p.wait_for_stderr("Running evaluation", 120)) << p.stderr_so_far();
  const auto sent = std::chrono::steady_clock::now();
  p.signal(SIGTERM);
  ProcessResult r = p.wait(60);
  const double exit_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.status, 143) << r.err;
  EXPECT_LT(exit_s, 2.0) << "evaluation went on after SIGTERM";
  EXPECT_TRUE(fs::exists(out + "/model.safetensors"));
  EXPECT_FALSE(fs::exists(out + "/eval_results.json"));
  EXPECT_TRUE(leftover_temporaries(out).empty());
}

TEST_F(Signals, SigtermCheckpointsAndExits143ThenResumeFinishes) { stop_and_resume(SIGTERM, 143, "SIGTERM"); }

TEST_F(Signals, SigintCheckpointsAndExits130ThenResumeFinishes) { stop_and_resume(SIGINT, 130, "SIGINT"); }

}  // namespace
}  // namespace cpuft_e2e
