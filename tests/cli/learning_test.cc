// cpuft learns: a tiny random BERT trained for 120 steps on the synthetic marker task scores far
// above the untrained model on held-out questions (the end-to-end learning test of make test).
#include "cli/e2e_fixture.h"

namespace cpuft_e2e {
namespace {

using Learning = E2eTest;

TEST_F(Learning, F1RisesWellAboveTheUntrainedModelOnHeldOutQuestions) {
  const std::string model = tiny_model();
  const std::string train = squad_file("train.json", 600, 1);
  const std::string dev = squad_file("dev.json", 100, 2);

  ProcessResult before = cpuft(concat({"evaluate", "--model_name_or_path", model, "--validation_file", dev,
                                       "--output_dir", path("untrained")},
                                      tiny_flags()));
  ASSERT_EQ(before.status, 0) << before.err;
  const double f1_0 = read_json(path("untrained/eval_results.json")).at("eval_f1").get<double>();

  // 120 steps of 16 windows (~3 epochs); the loss is below 0.3 after ~50 steps.
  ProcessResult after =
      cpuft(concat({"train", "--model_name_or_path", model, "--train_file", train, "--validation_file", dev,
                    "--do_train", "--do_eval", "--output_dir", path("trained"), "--max_steps", "120",
                    "--per_device_train_batch_size", "16", "--learning_rate", "2e-3", "--warmup_steps", "12",
                    "--logging_steps", "20", "--save_strategy", "no"},
                   tiny_flags()),
            300);
  ASSERT_EQ(after.status, 0) << after.err;
  const nlohmann::json results = read_json(path("trained/eval_results.json"));
  const double f1_1 = results.at("eval_f1").get<double>();
  const double em_1 = results.at("eval_exact_match").get<double>();
  std::printf("untrained F1 %.2f -> trained F1 %.2f (EM %.2f); train %.1f s\n", f1_0, f1_1, em_1, after.seconds);
  // The metrics are also printed, as run_qa prints them.
  EXPECT_NE(after.err.find("eval_f1 = " + results.at("eval_f1").dump()), std::string::npos) << after.err;

  // Measured: F1 ~5-8 untrained, 100 after training. The margins leave room for other seeds and ISAs.
  EXPECT_LT(f1_0, 30.0);
  EXPECT_GT(f1_1, 80.0);
  EXPECT_GT(f1_1 - f1_0, 50.0);
}

// --pad_to_max_length false --group_by_length (each batch padded to its longest window, windows of similar
// length together) learns the task as well, computing fewer positions: the FLOPs trainer_state.json counts
// (6 x tokens of the padded batches x parameters, as the Trainer counts them) fall below the padded run's.
TEST_F(Learning, DynamicPaddingWithLengthGroupsLearnsWithFewerPositions) {
  const std::string model = tiny_model();
  const std::string train = squad_file("train.json", 600, 1);
  const std::string dev = squad_file("dev.json", 100, 2);
  auto run = [&](const std::string& out, const Args& extra) {
    ProcessResult r = cpuft(concat(concat({"train", "--model_name_or_path", model, "--train_file", train,
                                           "--validation_file", dev, "--do_train", "--do_eval", "--output_dir",
                                           path(out), "--max_steps", "120", "--per_device_train_batch_size", "16",
                                           "--learning_rate", "2e-3", "--warmup_steps", "12", "--logging_steps",
                                           "20", "--save_strategy", "no"},
                                          tiny_flags()),
                                   extra),
                            300);
    EXPECT_EQ(r.status, 0) << r.err;
    return read_json(path(out + "/trainer_state.json")).at("total_flos").get<double>();
  };
  const double padded = run("padded", {});
  const double dynamic = run("dynamic", {"--pad_to_max_length", "false", "--group_by_length"});
  const double f1 = read_json(path("dynamic/eval_results.json")).at("eval_f1").get<double>();
  std::printf("dynamic padding: F1 %.2f, FLOPs %.3g vs %.3g padded\n", f1, dynamic, padded);
  EXPECT_GT(f1, 80.0);
  EXPECT_LT(dynamic, 0.9 * padded);
}

}  // namespace
}  // namespace cpuft_e2e
