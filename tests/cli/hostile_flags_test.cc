// Hostile numbers given to the cpuft program: flags beyond their range are refused before any work
// (no model is even looked for).
#include <thread>

#include "cli/e2e_fixture.h"

namespace cpuft_e2e {
namespace {

using HostileFlags = E2eTest;

// Each of these crashed, misbehaved or allocated for minutes; now one line, before the model is read.
TEST_F(HostileFlags, OutOfRangeNumbersStopBeforeAnyWork) {
  const std::string missing = path("no-model");
  const std::vector<std::pair<Args, std::string>> cases = {
      {{"--n_best_size", "2147483648"}, "--n_best_size: found '2147483648', expected an integer in [1, 1000]"},
      {{"--n_best_size", "4294967295"}, "--n_best_size: found '4294967295'"},
      {{"--max_answer_length", "3000000000"}, "--max_answer_length: found '3000000000'"},
      {{"--per_device_eval_batch_size", "3e9"}, "--per_device_eval_batch_size: found '3e9'"},
      {{"--learning_rate", "0x10"}, "--learning_rate: found '0x10', expected a number in (0, 10]"},
      {{"--threads", "10000"}, "--threads: found '10000', expected an integer in [0, 1024]"},
      {{"--bucket_size_mb", "1e-9"}, "--bucket_size_mb: found '1e-9', expected a number in [1, 4096]"},
  };
  for (const auto& [flags, says] : cases) {
    SCOPED_TRACE(flags[0]);
    ProcessResult r = cpuft(concat({"evaluate", "--model_name_or_path", missing, "--validation_file", path("none.json")},
                                   flags));
    EXPECT_ONE_LINE_ERROR(r, says);
  }
  ProcessResult r = cpuft({"train", "--model_name_or_path", missing, "--train_file", path("none.json"), "--output_dir",
                           path("out"), "--num_train_epochs", "1e300"});
  EXPECT_ONE_LINE_ERROR(r, "--num_train_epochs: found '1e300', expected a number in (0, 10000]");
  EXPECT_FALSE(fs::exists(path("out")));
}

TEST_F(HostileFlags, ThreadsBeyondTheMachine) {
  const unsigned cpus = std::thread::hardware_concurrency();
  if (cpus == 0 || cpus >= 1024) GTEST_SKIP() << "needs a machine with fewer than 1024 logical CPUs";
  const std::string model = tiny_model();
  ProcessResult r = cpuft(concat({"evaluate", "--model_name_or_path", model, "--validation_file",
                                  squad_file("dev.json", 2, 1), "--max_seq_length", "64", "--doc_stride", "16"},
                                 {"--threads", "1024"}));
  EXPECT_ONE_LINE_ERROR(r, "--threads: found 1024, expected at most " + std::to_string(cpus) +
                               " (the logical CPUs of this machine)");
}

}  // namespace
}  // namespace cpuft_e2e
