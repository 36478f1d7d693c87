// The tables of train / evaluate / predict (flags/train_flags.h): evaluate and predict show their own
// flags first and none that only training uses; train's other flags still parse there, with a notice.
#include "cpuft/flags/train_flags.h"

#include <gtest/gtest.h>

#include <set>

#include "cpuft/flags/args.h"
#include "cpuft/util/error.h"

namespace {

using cpuft::Command;
using Flags = std::vector<std::string>;

const char* no_env(const char*) { return nullptr; }

std::set<std::string> used_flags(Command c) {
  cpuft::TrainArgs a;
  const cpuft::FlagTable t = cpuft::train_flags(c, a);
  std::set<std::string> names;
  for (const cpuft::Flag& f : t.flags())
    if (f.role == cpuft::FlagRole::kUsed) names.insert(f.name);
  return names;
}

// The flags --help describes, in order (not those accepted with no effect, listed at the end).
Flags flags_in_help(const std::string& help_text) {
  const std::string help = help_text.substr(0, help_text.find("\nAccepted for compatibility"));
  Flags names;
  for (size_t at = help.find("\n  --"); at != std::string::npos; at = help.find("\n  --", at + 1))
    names.push_back(help.substr(at + 5, help.find_first_of(" \n", at + 5) - at - 5));
  return names;
}

std::string error_of(Command c, const Flags& flags) {
  try {
    cpuft::parse_train_args(c, flags, no_env);
  } catch (const cpuft::Error& e) {
    return e.what();
  }
  return "(no error)";
}

const Flags kEvaluate = {"--model_name_or_path", "m", "--validation_file", "dev.json", "--output_dir", "out"};

Flags evaluate_with(Flags extra) {
  Flags f = kEvaluate;
  f.insert(f.end(), extra.begin(), extra.end());
  return f;
}

}  // namespace

TEST(TrainFlags, EvaluateAndPredictListTheirOwnFlagsFirst) {
  const Flags evaluate = flags_in_help(cpuft::train_args_help(Command::kEvaluate));
  ASSERT_GE(evaluate.size(), 3u);
  EXPECT_EQ(Flags(evaluate.begin(), evaluate.begin() + 3),
            (Flags{"model_name_or_path", "validation_file", "output_dir"}));
  const Flags predict = flags_in_help(cpuft::train_args_help(Command::kPredict));
  ASSERT_GE(predict.size(), 6u);
  EXPECT_EQ(Flags(predict.begin(), predict.begin() + 6),
            (Flags{"question", "context", "input", "test_file", "output_dir", "model_name_or_path"}));
}

TEST(TrainFlags, EvaluateAndPredictListNoTrainingFlag) {
  const std::set<std::string> train = used_flags(Command::kTrain);
  for (Command c : {Command::kEvaluate, Command::kPredict}) {
    const std::string help = cpuft::train_args_help(c);
    const std::set<std::string> own = used_flags(c);
    EXPECT_EQ(flags_in_help(help).size(), own.size()) << help;
    for (const std::string& name : own) EXPECT_NE(help.find("\n  --" + name + " "), std::string::npos) << name;
    // Every flag train has and this command does not use is absent, named nowhere in the help.
    for (const std::string& name : train)
      if (!own.count(name)) {
        EXPECT_EQ(help.find("--" + name), std::string::npos) << name << " in\n" << help;
      }
    for (const char* training : {"learning_rate", "per_device_train_batch_size", "adam_beta1", "warmup_steps",
                                 "lr_scheduler_type", "save_steps", "save_total_limit", "resume_from_checkpoint",
                                 "bucket_size_mb", "allreduce_dtype", "train_file", "do_train"})
      EXPECT_FALSE(own.count(training)) << training;
  }
  // train lists everything, and none of predict's question flags.
  const Flags all = flags_in_help(cpuft::train_args_help(Command::kTrain));
  EXPECT_EQ(all.size(), train.size());
  EXPECT_FALSE(train.count("question"));
}

// People paste run_qa command lines: a training flag runs evaluate as before, with one notice.
TEST(TrainFlags, TrainingFlagsInEvaluateGiveANotice) {
  const cpuft::ParsedArgs r = cpuft::parse_train_args(
      Command::kEvaluate, evaluate_with({"--learning_rate", "3e-5", "--save_steps", "10", "--learning_rate=1e-4"}),
      no_env);
  ASSERT_EQ(r.notices.size(), 2u);
  EXPECT_EQ(r.notices[0], "--learning_rate has no effect in cpuft evaluate: it only scores --validation_file");
  EXPECT_EQ(r.notices[1], "--save_steps has no effect in cpuft evaluate: it only scores --validation_file");
  EXPECT_EQ(r.args.validation_file, "dev.json");
  const cpuft::ParsedArgs p = cpuft::parse_train_args(
      Command::kPredict, {"--model_name_or_path", "m", "--question", "q", "--context", "c", "--warmup_ratio", "0.1"},
      no_env);
  ASSERT_EQ(p.notices.size(), 1u);
  EXPECT_EQ(p.notices[0], "--warmup_ratio has no effect in cpuft predict: it only answers questions");
}

// The flags given are named as the table names them (an alias or --no_ by its flag), without the
// ones set from the environment.
TEST(TrainFlags, GivenFlagsAreNamedByTheTable) {
  const auto env = [](const char* name) -> const char* {
    return std::string(name) == "CPUFT_THREADS" ? "1" : nullptr;
  };
  const cpuft::ParsedArgs r = cpuft::parse_train_args(
      Command::kTrain,
      {"--model_name_or_path", "m", "--train_file", "t.json", "--output_dir", "o", "--evaluation_strategy", "no",
       "--no_pad_to_max_length", "--seed=3"},
      env);
  EXPECT_EQ(r.given, (std::set<std::string>{"model_name_or_path", "train_file", "output_dir", "eval_strategy",
                                            "pad_to_max_length", "seed"}));
  EXPECT_EQ(r.args.threads, 1);
}

// ... and fails exactly as before where it failed before.
TEST(TrainFlags, TrainingFlagsInEvaluateFailAsBefore) {
  EXPECT_EQ(error_of(Command::kEvaluate, evaluate_with({"--learning_rate", "0x10"})),
            "--learning_rate: found '0x10', expected a number in (0, 10]");
  EXPECT_EQ(error_of(Command::kEvaluate, evaluate_with({"--bucket_size_mb", "1e-9"})),
            "--bucket_size_mb: found '1e-9', expected a number in [1, 4096]");
  EXPECT_EQ(error_of(Command::kEvaluate, evaluate_with({"--do_train"})),
            "--do_train: not available in `cpuft evaluate`; use `cpuft train`");
  EXPECT_EQ(error_of(Command::kEvaluate, evaluate_with({"--lerning_rate", "1"})),
            "unknown flag --lerning_rate; did you mean --learning_rate? (`cpuft evaluate --help` lists every flag)");
  EXPECT_EQ(error_of(Command::kPredict, {"--model_name_or_path", "m", "--do_eval"}),
            "--validation_file: missing; evaluation (--do_eval) needs a SQuAD JSON file");
}

TEST(TrainFlags, PredictQuestionsAreFreeText) {
  const cpuft::TrainArgs a =
      cpuft::parse_train_args(Command::kPredict,
                              {"--model_name_or_path", "m", "--question", "--what is it?", "--context=", "--input=-"},
                              no_env)
          .args;
  EXPECT_EQ(*a.question, "--what is it?");
  ASSERT_TRUE(a.context.has_value());
  EXPECT_EQ(*a.context, "");
  EXPECT_EQ(*a.input, "-");
  EXPECT_EQ(error_of(Command::kPredict, {"--model_name_or_path", "m", "--question"}),
            "--question: missing its value (Q)");
  EXPECT_EQ(error_of(Command::kEvaluate, evaluate_with({"--question", "q"})),
            "unknown flag --question (`cpuft evaluate --help` lists every flag)");
}

// The flags resume checks compare are shown as --help shows them, from the table.
TEST(TrainFlags, ShowGivesTheBoundValue) {
  cpuft::TrainArgs a;
  const cpuft::FlagTable t = cpuft::train_flags(Command::kTrain, a);
  a.learning_rate = 2e-5;
  a.save_total_limit = 3;
  EXPECT_EQ(t.find("learning_rate")->show(), "2e-05");
  EXPECT_EQ(t.find("learning_rate")->default_text, "5e-05");
  EXPECT_EQ(t.find("save_total_limit")->show(), "3");
  EXPECT_EQ(t.find("data_seed")->show(), "--seed");
}
