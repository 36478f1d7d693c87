// Hostile numbers given to the cpuft program: flags beyond their range are refused before any work
// (no model is even looked for), and sizes that reach memory (a config, a batch) are checked against
// the machine before anything of that size is allocated.
#include <sstream>
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
    ProcessResult r = cpuft(concat({"evaluate", "--output_dir", path("eval-out"),
                                    "--model_name_or_path", missing, "--validation_file", path("none.json")},
                                   flags));
    EXPECT_ONE_LINE_ERROR(r, says);
  }
  ProcessResult r = cpuft({"train", "--model_name_or_path", missing, "--train_file", path("none.json"), "--output_dir",
                           path("out"), "--num_train_epochs", "1e300"});
  EXPECT_ONE_LINE_ERROR(r, "--num_train_epochs: found '1e300', expected a number in (0, 10000]");
  EXPECT_FALSE(fs::exists(path("out")));
}

// The small commands' counts are bounded too (a count multiplied into mpirun's -np overflowed).
TEST_F(HostileFlags, SmallCommandsBoundTheirCounts) {
  EXPECT_ONE_LINE_ERROR(cpuft({"launch", "--nproc_per_node", "99999999999", "--dry-run", "--", "train"}),
                        "--nproc_per_node: found '99999999999', expected an integer in [1, 1000000]");
  EXPECT_ONE_LINE_ERROR(cpuft({"init-model", "--config", "c.json", "--tokenizer", "t", "--output_dir", path("m"),
                               "--seed", "3000000000"}),
                        "--seed: found '3000000000', expected an integer in [0, 2147483647]");
}

// A 10 KB --output_dir was echoed whole in the error; path flags are cut as other values are, and
// refused before any work when no file system could open them.
TEST_F(HostileFlags, PathsTooLongToOpenAreCut) {
  const std::string huge = path(std::string(10000, 'o'));
  const std::vector<Args> commands = {
      {"train", "--model_name_or_path", path("m"), "--train_file", path("t.json"), "--output_dir", huge},
      {"evaluate", "--model_name_or_path", path("m"), "--validation_file", path("d.json"), "--output_dir", huge},
      {"quantize", "--model_name_or_path", path("m"), "--output_dir", huge},
      {"init-model", "--config", "c.json", "--tokenizer", "t", "--output_dir", huge}};
  for (const Args& args : commands) {
    SCOPED_TRACE(args[0]);
    ProcessResult r = cpuft(args);
    EXPECT_ONE_LINE_ERROR(r, "--output_dir: found '", "...' (" + std::to_string(huge.size()) + " bytes), expected a ",
                          " of at most 4096 bytes with names of at most 255");
    EXPECT_LT(error_line(r).size(), 300u) << error_line(r);
  }
  ProcessResult deep = cpuft({"evaluate", "--model_name_or_path", path("m"), "--validation_file", path("d.json"),
                              "--output_dir", path(std::string(300, 'n') + "/out")});
  EXPECT_ONE_LINE_ERROR(deep, "--output_dir: found '", "with names of at most 255");
}

// Linux lets a file name hold a newline or an escape byte; printed as is, such a path broke the error
// line in two (or sent escape sequences to the terminal). Every message escapes its control bytes.
TEST_F(HostileFlags, ControlBytesInPathsKeepTheErrorOneLine) {
  const auto every_line_is_cpuft = [](const ProcessResult& r) {
    std::istringstream lines(r.err);
    for (std::string line; std::getline(lines, line);)
      EXPECT_EQ(line.rfind("cpuft", 0), 0u) << "a line of stderr that cpuft did not start: " << line;
  };
  const std::string odd = path("a\nb\x1b[2J");
  const std::vector<Args> commands = {
      {"train", "--model_name_or_path", odd, "--train_file", path("t.json"), "--output_dir", path("out")},
      {"evaluate", "--model_name_or_path", odd, "--validation_file", path("d.json"), "--output_dir", path("e")},
      {"predict", "--model_name_or_path", odd, "--question", "q", "--context", "c"},
      {"quantize", "--model_name_or_path", odd, "--output_dir", path("q")}};
  for (const Args& args : commands) {
    SCOPED_TRACE(args[0]);
    ProcessResult r = cpuft(args);
    EXPECT_ONE_LINE_ERROR(r, "a\\nb\\x1b[2J");
    every_line_is_cpuft(r);
  }
  // A file flag, read after the model.
  ProcessResult r = cpuft(concat({"evaluate", "--output_dir", path("e2"), "--model_name_or_path", tiny_model(),
                                  "--validation_file", path("dev\tfile\n.json")},
                                 tiny_flags()));
  EXPECT_ONE_LINE_ERROR(r, "dev\\tfile\\n.json");
  every_line_is_cpuft(r);
  ProcessResult unknown = cpuft({"tra\nin"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("cpuft: unknown command 'tra\\nin'\n"), std::string::npos) << unknown.err;
}

TEST_F(HostileFlags, ThreadsBeyondTheMachine) {
  const unsigned cpus = std::thread::hardware_concurrency();
  if (cpus == 0 || cpus >= 1024) GTEST_SKIP() << "needs a machine with fewer than 1024 logical CPUs";
  const std::string model = tiny_model();
  ProcessResult r = cpuft(concat({"evaluate", "--output_dir", path("eval-out"),
                                  "--model_name_or_path", model, "--validation_file",
                                  squad_file("dev.json", 2, 1), "--max_seq_length", "64", "--doc_stride", "16"},
                                 {"--threads", "1024"}));
  EXPECT_ONE_LINE_ERROR(r, "--threads: found 1024, expected at most " + std::to_string(cpus) +
                               " (the logical CPUs of this machine)");
}

// A config.json that disagrees with its weights: hidden_size 8192 against the tiny model's 64 used to
// allocate and initialise the 8192-wide model (3 GB) before the shape error. Under a 1.5 GB address
// space that allocation fails; checked against the header first, it never happens.
TEST_F(HostileFlags, ConfigIsCheckedAgainstTheWeightsBeforeAllocating) {
  const std::string model = tiny_model();
  nlohmann::json config = read_json(model + "/config.json");
  config["hidden_size"] = 8192;
  write_text(model + "/config.json", config.dump());
  RunOptions small;
  small.address_space_limit = uint64_t{1500} << 20;
  ProcessResult r = cpuft_with(concat({"evaluate", "--output_dir", path("eval-out"),
                                       "--model_name_or_path", model, "--validation_file",
                                       squad_file("dev.json", 2, 1)},
                                      tiny_flags()),
                               small);
  EXPECT_ONE_LINE_ERROR(r, model + "/model.safetensors: tensor ", "has shape [30522, 64], expected [30522, 8192] as " +
                                                                       model + "/config.json says");
}

// Sizes within the config bounds that no machine holds: refused with what the config asks for.
TEST_F(HostileFlags, ConfigBeyondTheMachinesMemory) {
  const std::string config = path("huge.json");
  write_text(config, R"({"model_type": "bert", "hidden_size": 65536, "num_hidden_layers": 512,
                         "num_attention_heads": 64, "intermediate_size": 262144})");
  ProcessResult r = cpuft({"init-model", "--config", config, "--tokenizer", CPUFT_FIXTURES "/text", "--output_dir",
                           path("m")});
  EXPECT_ONE_LINE_ERROR(r, "model config: 512 layers of width 65536", "TiB of memory, more than the",
                        "available to this process");
  EXPECT_FALSE(fs::exists(path("m/model.safetensors")));
}

// A batch whose activations do not fit is refused before the data is read (here under a 4 GiB
// address-space limit, which counts as what the process has).
TEST_F(HostileFlags, BatchBeyondTheMachinesMemory) {
  const std::string model = tiny_model();
  RunOptions small;
  small.address_space_limit = uint64_t{4} << 30;
  ProcessResult r = cpuft_with({"train", "--model_name_or_path", model, "--train_file", path("not-read.json"),
                                "--output_dir", path("out"), "--per_device_train_batch_size", "4096",
                                "--max_seq_length", "128", "--doc_stride", "16", "--threads", "1"},
                               small);
  EXPECT_ONE_LINE_ERROR(r, "--per_device_train_batch_size 4096 with --max_seq_length 128: training this model",
                        "of memory, more than the");
}

}  // namespace
}  // namespace cpuft_e2e
