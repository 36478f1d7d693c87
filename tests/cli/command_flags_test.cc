// Every command's flags go through one table (flags/flag_table.h): the same one-line errors for a bad
// value or an unknown flag, a --help generated from the table (each flag with its range and default),
// the old spellings still accepted, and evaluate / predict listing only their own flags while taking
// pasted training flags with a notice.
#include <map>

#include "cli/e2e_fixture.h"
#include "cpuft/flags/train_flags.h"

namespace cpuft_e2e {
namespace {

using CommandFlags = E2eTest;

const std::vector<std::string> kCommands = {"train", "evaluate", "predict", "quantize",  "doctor",
                                            "bench", "launch",   "cluster-check", "init-model"};

// The flag lines of a --help (not the list of flags accepted with no effect), by flag name.
std::map<std::string, std::string> flag_lines(const std::string& help_text) {
  const std::string help = help_text.substr(0, help_text.find("\nAccepted for compatibility"));
  std::map<std::string, std::string> lines;
  for (size_t at = help.find("\n  --"); at != std::string::npos; at = help.find("\n  --", at + 1)) {
    const std::string name = help.substr(at + 5, help.find_first_of(" \n", at + 5) - at - 5);
    size_t end = help.find('\n', at + 1);
    if (help.compare(end + 1, 4, "    ") == 0) end = help.find('\n', end + 1);  // a long name: help on the next line
    lines[name] = help.substr(at + 1, end - at - 1);
  }
  return lines;
}

TEST_F(CommandFlags, SmallCommandsRefuseABadValueInOneLine) {
  const std::vector<std::pair<Args, std::string>> cases = {
      {{"doctor", "--ranks-per-node", "0"}, "--ranks-per-node: found '0', expected an integer in [1, 1000000]"},
      {{"bench", "--threads", "2000"}, "--threads: found '2000', expected an integer in [0, 1024]"},
      {{"bench", "--bucket_size_mb", "0"}, "--bucket_size_mb: found '0', expected a number in (0, 4096]"},
      {{"bench", "--allreduce_dtype", "f16"}, "--allreduce_dtype: found 'f16', expected one of f32 bf16"},
      {{"launch", "--threads-per-rank", "x", "--", "train"},
       "--threads-per-rank: found 'x', expected an integer in [1, 1000000]"},
      {{"cluster-check", "--hostfile", "h", "--timeout", "0"},
       "--timeout: found '0', expected an integer in [1, 1000000]"},
      {{"init-model", "--seed", "-1"}, "--seed: found '-1', expected an integer in [0, 2147483647]"},
      {{"quantize", "--max_seq_length", "9000"}, "--max_seq_length: found '9000', expected an integer in [4, 8192]"},
      {{"quantize", "--threads"}, "--threads: missing its value (N)"},
  };
  for (const auto& [args, message] : cases) {
    const ProcessResult r = cpuft(args);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(error_line(r), "cpuft: error: " + message);
  }
}

TEST_F(CommandFlags, SmallCommandsRefuseAnUnknownFlagInOneLine) {
  const std::vector<std::pair<Args, std::string>> cases = {
      {{"doctor", "--jsn"}, "--jsn; did you mean --json?"},
      {{"bench", "--stpes", "2"}, "--stpes; did you mean --steps?"},
      {{"launch", "--dryrun", "--", "train"}, "--dryrun; did you mean --dry-run?"},
      {{"cluster-check", "--host_file", "h"}, "--host_file; did you mean --hostfile?"},
      {{"init-model", "--tokeniser", "t"}, "--tokeniser; did you mean --tokenizer?"},
      {{"quantize", "--calibration_window", "4"}, "--calibration_window; did you mean --calibration_windows?"},
  };
  for (const auto& [args, what] : cases) {
    const ProcessResult r = cpuft(args);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(error_line(r),
              "cpuft: error: unknown flag " + what + " (`cpuft " + args[0] + " --help` lists every flag)");
  }
}

// Each help line ends with what the flag takes: a range for every number, and its default (or "required").
TEST_F(CommandFlags, EveryHelpGivesEachFlagItsRangeAndDefault) {
  for (const std::string& command : kCommands) {
    SCOPED_TRACE(command);
    ProcessResult r = cpuft({command, "--help"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind("usage: cpuft " + command + " ", 0), 0u) << r.out;
    const std::map<std::string, std::string> lines = flag_lines(r.out);
    EXPECT_GE(lines.size(), 2u) << r.out;
    for (const auto& [name, line] : lines) {
      EXPECT_TRUE(line.find("default: ") != std::string::npos || line.find("(required") != std::string::npos) << line;
      for (const char* numeric : {" N ", " FLOAT ", " K ", " T ", " S ", " N|RATIO "})
        if (line.find("--" + name + numeric) != std::string::npos) {
          EXPECT_NE(line.find("(range "), std::string::npos) << line;
        }
    }
  }
}

// The small commands' help lists exactly the flags of their tables (declared in cli/cmd_*.cc).
TEST_F(CommandFlags, SmallCommandsHelpListsEveryFlag) {
  const std::map<std::string, std::vector<std::pair<std::string, std::string>>> expected = {
      {"doctor",
       {{"--ranks-per-node K", "(range [1, 1000000], default: one per NUMA node; also --ranks_per_node)"},
        {"--json", "(default: false)"}}},
      {"bench",
       {{"--config FILE", "(default: none)"},
        {"--model_type distilbert|bert", "(default: distilbert)"},
        {"--hidden N", "(range [1, 1000000], default: 768)"},
        {"--layers N", "(range [1, 1000000], default: 6)"},
        {"--heads N", "(range [1, 1000000], default: 12)"},
        {"--intermediate N", "(range [1, 1000000], default: 3072)"},
        {"--vocab N", "(range [1, 1000000], default: 30522)"},
        {"--batch N", "(range [1, 1000000], default: 8)"},
        {"--seq N", "(range [1, 1000000], default: 384)"},
        {"--steps N", "(range [1, 1000000], default: 5)"},
        {"--warmup N", "(range [0, 1000000], default: 2)"},
        {"--threads N", "(range [0, 1024], default: 0)"},
        {"--bf16", "(default: false)"},
        {"--eval", "(default: false)"},
        {"--profile", "(default: false)"},
        {"--json", "(default: false)"},
        {"--allreduce_dtype f32|bf16", "(default: f32)"},
        {"--bucket_size_mb FLOAT", "(range (0, 4096], default: 25)"}}},
      {"launch",
       {{"--hostfile FILE", "(default: this machine)"},
        {"--nproc_per_node K", "(range [1, 1000000], default: 1; also --nproc-per-node)"},
        {"--threads_per_rank T", "(range [1, 1000000], default: each rank plans its own; also --threads-per-rank)"},
        {"--mpirun PATH", "(default: mpirun)"},
        {"--mpi-arg ARG", "(default: none, repeatable)"},
        {"--dry-run", "(default: false)"},
        {"--slurm", "(default: false)"},
        {"--nodes N", "(range [1, 1000000], default: 1)"}}},
      {"cluster-check",
       {{"--hostfile FILE", "(required)"},
        {"--rsh-agent PATH", "(default: $OMPI_MCA_plm_rsh_agent, else ssh)"},
        {"--timeout S", "(range [1, 1000000], default: 10)"},
        {"--mpirun PATH", "(default: mpirun)"},
        {"--mpi-arg ARG", "(default: none, repeatable)"}}},
      {"init-model",
       {{"--config FILE", "(required)"},
        {"--tokenizer DIR", "(required)"},
        {"--output_dir OUT", "(required)"},
        {"--seed N", "(range [0, 2147483647], default: 42)"}}},
      {"quantize",
       {{"--model_name_or_path DIR", "(required)"},
        {"--output_dir OUT", "(required)"},
        {"--calibration_file FILE", "(default: none: activations quantized per token)"},
        {"--calibration_windows N", "(range [1, 1000000], default: 256)"},
        {"--max_seq_length N", "(range [4, 8192], default: 384)"},
        {"--doc_stride N", "(range [0, 8191], default: 128)"},
        {"--per_device_eval_batch_size N", "(range [1, 4096], default: 8)"},
        {"--threads N", "(range [0, 1024], default: 0)"}}},
  };
  for (const auto& [command, flags] : expected) {
    SCOPED_TRACE(command);
    ProcessResult r = cpuft({command, "--help"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::map<std::string, std::string> lines = flag_lines(r.out);
    EXPECT_EQ(lines.size(), flags.size()) << r.out;
    for (const auto& [head, details] : flags) {
      const std::string name = head.substr(2, head.find(' ') - 2);  // "--json": npos - 2 is still "to the end"
      const auto it = lines.find(name);
      ASSERT_NE(it, lines.end()) << head << " missing from\n" << r.out;
      EXPECT_EQ(it->second.rfind("  " + head + " ", 0), 0u) << it->second;
      EXPECT_EQ(it->second.substr(it->second.size() - details.size()), details) << it->second;
    }
  }
  // What the hand-written help said besides the flags is still said.
  EXPECT_NE(cpuft({"launch", "--help"}).out.find("Everything after -- is the cpuft command each rank runs"),
            std::string::npos);
  EXPECT_NE(cpuft({"quantize", "--help"}).out.find("The format: docs/quantization.md."), std::string::npos);
}

// train, evaluate and predict: the binary's help is the table's (flags/train_flags.h), flag by flag.
TEST_F(CommandFlags, TrainEvaluatePredictHelpIsTheirTable) {
  for (cpuft::Command c : {cpuft::Command::kTrain, cpuft::Command::kEvaluate, cpuft::Command::kPredict}) {
    const std::string command = cpuft::command_name(c);
    SCOPED_TRACE(command);
    ProcessResult r = cpuft({command, "--help"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::map<std::string, std::string> lines = flag_lines(r.out);
    cpuft::TrainArgs args;
    const cpuft::FlagTable table = cpuft::train_flags(c, args);
    size_t used = 0;
    for (const cpuft::Flag& f : table.flags()) {
      if (f.role != cpuft::FlagRole::kUsed) {
        EXPECT_EQ(lines.count(f.name), 0u) << f.name;
        continue;
      }
      ++used;
      const auto it = lines.find(f.name);
      ASSERT_NE(it, lines.end()) << f.name << " missing from\n" << r.out;
      if (!f.range.empty()) {
        EXPECT_NE(it->second.find("(range " + f.range + ", "), std::string::npos) << it->second;
      }
      EXPECT_NE(it->second.find("default: " + f.default_text), std::string::npos) << it->second;
    }
    EXPECT_EQ(lines.size(), used);
  }
  ProcessResult evaluate = cpuft({"evaluate", "--help"});
  EXPECT_LT(evaluate.out.find("\n  --model_name_or_path "), evaluate.out.find("\n  --validation_file "));
  EXPECT_LT(evaluate.out.find("\n  --validation_file "), evaluate.out.find("\n  --output_dir "));
  EXPECT_EQ(evaluate.out.find("\n  --"), evaluate.out.find("\n  --model_name_or_path "));  // ... and come first
  ProcessResult predict = cpuft({"predict", "--help"});
  EXPECT_EQ(predict.out.find("\n  --"), predict.out.find("\n  --question "));
  for (const ProcessResult* r : {&evaluate, &predict})
    for (const char* training : {"--learning_rate", "--per_device_train_batch_size", "--save_steps", "--warmup_steps",
                                 "--bucket_size_mb", "--adam_beta1"})
      EXPECT_EQ(r->out.find(training), std::string::npos) << training;
}

// A run_qa command line pasted into evaluate: the training flags are noticed and change nothing.
TEST_F(CommandFlags, TrainingFlagsGivenToEvaluateRunWithANotice) {
  const std::string model = tiny_model();
  const std::string dev = squad_file("dev.json", 6, 4);
  const Args base = concat({"evaluate", "--model_name_or_path", model, "--validation_file", dev}, tiny_flags());
  ProcessResult plain = cpuft(concat(base, {"--output_dir", path("plain")}));
  ASSERT_EQ(plain.status, 0) << plain.err;
  ProcessResult pasted = cpuft(concat(base, {"--output_dir", path("pasted"), "--do_eval", "--learning_rate", "3e-5",
                                             "--per_device_train_batch_size", "12", "--save_steps=10"}));
  ASSERT_EQ(pasted.status, 0) << pasted.err;
  for (const char* flag : {"--learning_rate", "--per_device_train_batch_size", "--save_steps"})
    EXPECT_NE(pasted.err.find(std::string("cpuft: notice: ") + flag +
                              " has no effect in cpuft evaluate: it only scores --validation_file\n"),
              std::string::npos)
        << pasted.err;
  EXPECT_EQ(plain.err.find("no effect"), std::string::npos) << plain.err;
  EXPECT_EQ(read_json(path("pasted/eval_predictions.json")), read_json(path("plain/eval_predictions.json")));
  const nlohmann::json scores = read_json(path("plain/eval_results.json"));
  for (const char* key : {"eval_exact_match", "eval_f1", "eval_samples"})
    EXPECT_EQ(read_json(path("pasted/eval_results.json")).at(key), scores.at(key)) << key;
  // Where such a command line failed, it still fails the same way, before any work.
  EXPECT_ONE_LINE_ERROR(cpuft(concat(base, {"--output_dir", path("x"), "--per_device_train_batch_size", "0"})),
                        "--per_device_train_batch_size: found '0', expected an integer in [1, 4096]");
  EXPECT_ONE_LINE_ERROR(cpuft(concat(base, {"--output_dir", path("x"), "--do_train"})),
                        "--do_train: not available in `cpuft evaluate`; use `cpuft train`");
  EXPECT_FALSE(fs::exists(path("x")));
}

TEST_F(CommandFlags, OldSpellingsStillWork) {
  ProcessResult doctor = cpuft({"doctor", "--ranks_per_node", "2", "--json"});
  ASSERT_EQ(doctor.status, 0) << doctor.err;
  EXPECT_EQ(nlohmann::json::parse(doctor.out).at("plan").at("ranks_per_node"), 2);
  ProcessResult launch = cpuft({"launch", "--slurm", "--nodes", "2", "--nproc-per-node", "2", "--threads-per-rank", "3",
                                "--dry-run", "--", "train", "--output_dir", "out"});
  ASSERT_EQ(launch.status, 0) << launch.err;
  EXPECT_NE(launch.out.find("#SBATCH --ntasks-per-node=2\n"), std::string::npos) << launch.out;
  EXPECT_NE(launch.out.find("export OMP_NUM_THREADS=3\n"), std::string::npos) << launch.out;
  // --mpi-arg takes mpirun's own flags as values (here refused only because --slurm does not use them).
  EXPECT_ONE_LINE_ERROR(cpuft({"launch", "--slurm", "--mpi-arg", "--mca", "--mpi-arg", "btl", "--", "train"}),
                        "--mpi-arg: not used with --slurm");
}

TEST_F(CommandFlags, PredictQuestionsInTheEqualsFormAndStartingWithDashes) {
  const std::string model = tiny_model();
  ProcessResult r = cpuft(concat({"predict", "--model_name_or_path", model, "--question=--what comes after red ?",
                                  "--context", "the red apple was on the table", "--learning_rate", "1e-4"},
                                 tiny_flags()));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json line = nlohmann::json::parse(r.out);  // one answer line
  for (const char* key : {"answer", "probability", "start", "end"}) EXPECT_TRUE(line.contains(key)) << line;
  EXPECT_NE(r.err.find("--learning_rate has no effect in cpuft predict"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cpuft_e2e
