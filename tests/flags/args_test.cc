#include "cpuft/flags/args.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "cpuft/util/error.h"

namespace {

using cpuft::Command;
using Flags = std::vector<std::string>;

// Flags every parse below needs (a train run must name its model, data and output).
Flags base(Flags extra = {}) {
  Flags f = {"--model_name_or_path", "m", "--train_file", "t.json", "--output_dir", "out"};
  f.insert(f.end(), extra.begin(), extra.end());
  return f;
}

const char* no_env(const char*) { return nullptr; }

cpuft::ParsedArgs parse(const Flags& f, Command c = Command::kTrain) { return cpuft::parse_train_args(c, f, no_env); }

std::string error_of(const Flags& f, Command c = Command::kTrain) {
  try {
    parse(f, c);
  } catch (const cpuft::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(Args, DefaultsMatchTransformers) {
  auto r = parse(base());
  const auto& a = r.args;
  EXPECT_TRUE(a.do_train);
  EXPECT_FALSE(a.do_eval);
  EXPECT_EQ(a.per_device_train_batch_size, 8);
  EXPECT_EQ(a.per_device_eval_batch_size, 8);
  EXPECT_EQ(a.learning_rate, 5e-5);
  EXPECT_EQ(a.adam_beta2, 0.999);
  EXPECT_EQ(a.adam_epsilon, 1e-8);
  EXPECT_EQ(a.max_grad_norm, 1.0);
  EXPECT_EQ(a.num_train_epochs, 3.0);
  EXPECT_EQ(a.max_steps, -1);
  EXPECT_EQ(a.lr_scheduler_type, cpuft::LrSchedulerType::kLinear);
  EXPECT_EQ(a.seed, 42);
  EXPECT_EQ(a.effective_data_seed(), 42);
  EXPECT_EQ(a.max_seq_length, 384);
  EXPECT_EQ(a.doc_stride, 128);
  EXPECT_TRUE(a.pad_to_max_length);
  EXPECT_EQ(a.n_best_size, 20);
  EXPECT_EQ(a.max_answer_length, 30);
  EXPECT_EQ(a.logging_steps, 500);
  EXPECT_EQ(a.save_strategy, cpuft::SaveStrategy::kSteps);
  EXPECT_FALSE(a.save_total_limit.has_value());
  EXPECT_TRUE(r.notices.empty());
}

TEST(Args, ReferenceCommandLinePorts) {
  // The reference run_qa.py command line with the program name changed.
  auto r = parse({"--model_name_or_path", "distilbert-base-uncased", "--do_train", "--do_eval", "--train_file",
                  "train-v1.1.json", "--validation_file", "dev-v1.1.json", "--per_device_train_batch_size", "32",
                  "--learning_rate", "3e-5", "--num_train_epochs", "2", "--max_seq_length", "384", "--doc_stride",
                  "128", "--output_dir", "/tmp/out", "--bf16", "--no_cuda", "--use_ipex", "--ddp_backend", "ccl",
                  "--report_to", "none", "--overwrite_output_dir", "True", "--seed=7"});
  const auto& a = r.args;
  EXPECT_TRUE(a.do_eval);
  EXPECT_TRUE(a.bf16);
  EXPECT_TRUE(a.overwrite_output_dir);
  EXPECT_EQ(a.per_device_train_batch_size, 32);
  EXPECT_EQ(a.learning_rate, 3e-5);
  EXPECT_EQ(a.num_train_epochs, 2.0);
  EXPECT_EQ(a.seed, 7);
  EXPECT_EQ(a.validation_file, "dev-v1.1.json");
  EXPECT_EQ(a.report_to, std::vector<std::string>{"none"});
  ASSERT_EQ(r.notices.size(), 3u);
  EXPECT_EQ(r.notices[0], "--no_cuda has no effect in cpuft: cpuft runs on CPUs only");
  EXPECT_EQ(r.notices[2], "--ddp_backend has no effect in cpuft: cpuft communicates through MPI (run it under mpirun)");
}

TEST(Args, BooleanForms) {
  EXPECT_TRUE(parse(base({"--bf16"})).args.bf16);
  EXPECT_TRUE(parse(base({"--bf16", "true"})).args.bf16);
  EXPECT_TRUE(parse(base({"--bf16", "True"})).args.bf16);
  EXPECT_TRUE(parse(base({"--bf16", "1"})).args.bf16);
  EXPECT_FALSE(parse(base({"--bf16=false"})).args.bf16);
  EXPECT_FALSE(parse(base({"--bf16", "False"})).args.bf16);
  EXPECT_FALSE(parse(base({"--pad_to_max_length", "false"})).args.pad_to_max_length);
  EXPECT_FALSE(parse(base({"--no_pad_to_max_length"})).args.pad_to_max_length);
  // A bare boolean followed by another flag does not swallow it.
  auto r = parse(base({"--bf16", "--do_eval", "--validation_file", "v.json"}));
  EXPECT_TRUE(r.args.bf16);
  EXPECT_TRUE(r.args.do_eval);
  EXPECT_EQ(error_of(base({"--bf16=maybe"})), "--bf16: found 'maybe', expected true or false");
}

TEST(Args, EqualsAndSpaceFormsAgree) {
  auto a = parse(base({"--learning_rate=2e-05", "--lr_scheduler_type=cosine", "--save_total_limit=2"})).args;
  auto b = parse(base({"--learning_rate", "2e-05", "--lr_scheduler_type", "cosine", "--save_total_limit", "2"})).args;
  EXPECT_EQ(a.learning_rate, b.learning_rate);
  EXPECT_EQ(a.lr_scheduler_type, cpuft::LrSchedulerType::kCosine);
  EXPECT_EQ(b.lr_scheduler_type, cpuft::LrSchedulerType::kCosine);
  EXPECT_EQ(*a.save_total_limit, 2);
  EXPECT_EQ(*b.save_total_limit, 2);
}

TEST(Args, ValidatorsNameFlagValueAndExpectation) {
  EXPECT_EQ(error_of(base({"--learning_rate", "abc"})), "--learning_rate: found 'abc', expected a number in (0, 10]");
  EXPECT_EQ(error_of(base({"--learning_rate", "-1"})), "--learning_rate: found '-1', expected a number in (0, 10]");
  EXPECT_EQ(error_of(base({"--learning_rate", "nan"})), "--learning_rate: found 'nan', expected a number in (0, 10]");
  EXPECT_EQ(error_of(base({"--per_device_train_batch_size", "8.5"})),
            "--per_device_train_batch_size: found '8.5', expected an integer in [1, 4096]");
  EXPECT_EQ(error_of(base({"--per_device_train_batch_size", "0"})),
            "--per_device_train_batch_size: found '0', expected an integer in [1, 4096]");
  EXPECT_EQ(error_of(base({"--adam_beta1", "1"})), "--adam_beta1: found '1', expected a number in [0, 1)");
  EXPECT_EQ(error_of(base({"--max_steps", "0"})),
            "--max_steps: found '0', expected an integer in [1, 1000000000], or -1 to use --num_train_epochs");
  EXPECT_EQ(error_of(base({"--warmup_steps", "2.5"})),
            "--warmup_steps: found '2.5', expected 0, an integer in [1, 1000000000], or a ratio in (0, 1)");
  EXPECT_EQ(error_of(base({"--lr_scheduler_type", "polynomial"})),
            "--lr_scheduler_type: found 'polynomial', expected one of linear constant constant_with_warmup cosine");
  EXPECT_EQ(error_of(base({"--save_strategy", "always"})),
            "--save_strategy: found 'always', expected one of steps epoch no");
  EXPECT_EQ(error_of(base({"--allreduce_dtype", "f16"})), "--allreduce_dtype: found 'f16', expected one of f32 bf16");
  EXPECT_EQ(error_of(base({"--seed", "99999999999"})), "--seed: found '99999999999', expected an integer in [0, 4294967295]");
  EXPECT_EQ(error_of(base({"--learning_rate"})), "--learning_rate: missing its value (FLOAT)");
  EXPECT_EQ(error_of(base({"--output_dir", "--do_eval"})), "--output_dir: missing its value (DIR)");
}

// Values that overflowed, wrapped or were misread before every numeric flag had a type and a range:
// n_best_size 2^31 (a negative k in the top-k sort: SIGSEGV), 2^32 - 1, max_answer_length 3e9 (every
// answer "empty", EM 0, exit 0), batch sizes 2^32 + 1 and 1e8 (bad_alloc), epochs 1e300 and warmup
// 1e19 (messages with -9223372036854775808), hexadecimal read as a number.
TEST(Args, EveryNumericFlagHasARange) {
  const std::vector<std::pair<Flags, std::string>> cases = {
      {{"--n_best_size", "2147483648"}, "--n_best_size: found '2147483648', expected an integer in [1, 1000]"},
      {{"--n_best_size", "4294967295"}, "--n_best_size: found '4294967295', expected an integer in [1, 1000]"},
      {{"--max_answer_length", "3000000000"},
       "--max_answer_length: found '3000000000', expected an integer in [1, 8192]"},
      {{"--per_device_eval_batch_size", "3000000000"},
       "--per_device_eval_batch_size: found '3000000000', expected an integer in [1, 4096]"},
      {{"--per_device_train_batch_size", "4294967297"},
       "--per_device_train_batch_size: found '4294967297', expected an integer in [1, 4096]"},
      {{"--per_device_train_batch_size", "1e8"},
       "--per_device_train_batch_size: found '1e8', expected an integer in [1, 4096]"},
      {{"--num_train_epochs", "1e300"}, "--num_train_epochs: found '1e300', expected a number in (0, 10000]"},
      {{"--warmup_steps", "1e19"},
       "--warmup_steps: found '1e19', expected 0, an integer in [1, 1000000000], or a ratio in (0, 1)"},
      {{"--learning_rate", "0x10"}, "--learning_rate: found '0x10', expected a number in (0, 10]"},
      {{"--learning_rate", "inf"}, "--learning_rate: found 'inf', expected a number in (0, 10]"},
      {{"--learning_rate", " 1e-4"}, "--learning_rate: found ' 1e-4', expected a number in (0, 10]"},
      {{"--learning_rate", "1e-4x"}, "--learning_rate: found '1e-4x', expected a number in (0, 10]"},
      {{"--max_steps", "99999999999999999999"},
       "--max_steps: found '99999999999999999999', expected an integer in [1, 1000000000], or -1 to use "
       "--num_train_epochs"},
      {{"--threads", "10000"}, "--threads: found '10000', expected an integer in [0, 1024]"},
      {{"--bucket_size_mb", "1e-9"}, "--bucket_size_mb: found '1e-9', expected a number in [1, 4096]"},
      {{"--bucket_size_mb", "1e9"}, "--bucket_size_mb: found '1e9', expected a number in [1, 4096]"},
      {{"--gradient_accumulation_steps", "100000"},
       "--gradient_accumulation_steps: found '100000', expected an integer in [1, 65536]"},
      {{"--save_steps", "1e10"},
       "--save_steps: found '1e10', expected an integer in [1, 1000000000], or a ratio in (0, 1)"},
      {{"--max_train_samples", "-3"}, "--max_train_samples: found '-3', expected an integer in [1, 1000000000]"},
      {{"--collective_timeout", "-1"}, "--collective_timeout: found '-1', expected a number in [0, 86400]"},
      {{"--max_seq_length", "3"}, "--max_seq_length: found '3', expected an integer in [4, 8192]"},
      {{"--null_score_diff_threshold", "1e300"},
       "--null_score_diff_threshold: found '1e300', expected a number in [-1000000, 1000000]"},
  };
  for (const auto& [flags, message] : cases) EXPECT_EQ(error_of(base(flags)), message);
  // A long value is cut in the message.
  EXPECT_EQ(error_of(base({"--learning_rate", std::string(1000, '9') + "x"})),
            "--learning_rate: found '" + std::string(48, '9') + "...', expected a number in (0, 10]");
  // The ends of each range are accepted, and plain decimal forms with them.
  auto a = parse(base({"--n_best_size", "1000", "--learning_rate", "10", "--bucket_size_mb", "1", "--threads", "0",
                       "--max_steps", "1000000000", "--num_train_epochs", "+2.5", "--collective_timeout", "0"}))
               .args;
  EXPECT_EQ(a.n_best_size, 1000);
  EXPECT_EQ(a.learning_rate, 10.0);
  EXPECT_EQ(a.bucket_size_mb, 1.0);
  EXPECT_EQ(a.max_steps, 1000000000);
  EXPECT_EQ(a.num_train_epochs, 2.5);
  EXPECT_EQ(a.collective_timeout, 0.0);
}

TEST(Args, RatiosAndOptionalValues) {
  auto a = parse(base({"--warmup_steps", "0.1", "--logging_steps", "0.25", "--data_seed", "3", "--max_train_samples",
                       "100", "--max_steps", "-1"}))
               .args;
  EXPECT_EQ(a.warmup_steps, 0.1);
  EXPECT_EQ(a.logging_steps, 0.25);
  EXPECT_EQ(a.effective_data_seed(), 3);
  EXPECT_EQ(*a.max_train_samples, 100);
}

TEST(Args, MisspeltFlagSuggestsClosest) {
  EXPECT_EQ(error_of(base({"--learnin_rate", "1e-4"})),
            "unknown flag --learnin_rate; did you mean --learning_rate? (`cpuft train --help` lists every flag)");
  EXPECT_EQ(error_of(base({"--per_device_batch_size", "8"})),
            "unknown flag --per_device_batch_size; did you mean --per_device_eval_batch_size? (`cpuft train --help` "
            "lists every flag)");
  EXPECT_EQ(error_of(base({"--zzzzzz"})), "unknown flag --zzzzzz (`cpuft train --help` lists every flag)");
  EXPECT_EQ(error_of(base({"stray"})), "unexpected argument 'stray'; flags start with -- (see `cpuft train --help`)");
  // What comes from the command line is cut in messages like values from files.
  EXPECT_EQ(error_of(base({"--" + std::string(100000, 'x')})),
            "unknown flag --" + std::string(46, 'x') + "... (`cpuft train --help` lists every flag)");
  EXPECT_EQ(error_of(base({std::string(100000, 's')})),
            "unexpected argument '" + std::string(48, 's') + "...'; flags start with -- (see `cpuft train --help`)");
}

TEST(Args, EditDistance) {
  EXPECT_EQ(cpuft::edit_distance("", "abc"), 3u);
  EXPECT_EQ(cpuft::edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(cpuft::edit_distance("bf16", "bf16"), 0u);
}

TEST(Args, IgnoredFlagsGiveOneNoticeEach) {
  auto r = parse(base({"--no_cuda", "--no_cuda", "true", "--report_to", "tensorboard", "wandb", "--local_rank=0",
                       "--dataloader_num_workers", "4", "--preprocessing_num_workers", "8", "--overwrite_cache",
                       "--jit_mode_eval", "False", "--cache_dir", "/c", "--xpu_backend", "ccl",
                       "--ddp_find_unused_parameters", "false", "--use_cpu", "--fp16", "false"}));
  EXPECT_EQ(r.notices.size(), 12u);
  for (const auto& n : r.notices) EXPECT_NE(n.find(" has no effect in cpuft: "), std::string::npos) << n;
  EXPECT_EQ(r.args.per_device_train_batch_size, 8);  // values of ignored flags are consumed, not misread
}

TEST(Args, Fp16IsAnErrorPointingAtBf16) {
  EXPECT_EQ(error_of(base({"--fp16"})), "--fp16: fp16 is for GPUs; use --bf16 on CPUs");
}

TEST(Args, DatasetHubNeedsLocalFiles) {
  auto r = parse(base({"--dataset_name", "squad"}));
  ASSERT_EQ(r.notices.size(), 1u);
  EXPECT_NE(r.notices[0].find("--dataset_name has no effect"), std::string::npos);
  std::string e = error_of({"--model_name_or_path", "m", "--output_dir", "o", "--dataset_name", "squad"});
  EXPECT_EQ(e.rfind("--dataset_name: cpuft cannot reach dataset hubs; pass SQuAD JSON files instead", 0), 0u) << e;
}

TEST(Args, CommandsNeedTheirFiles) {
  EXPECT_EQ(error_of({"--model_name_or_path", "m", "--output_dir", "o"}),
            "--train_file: missing; training needs a SQuAD JSON file");
  EXPECT_EQ(error_of({"--train_file", "t", "--output_dir", "o"}),
            "--model_name_or_path: missing; `cpuft train` needs a Hugging Face model directory");
  EXPECT_EQ(error_of({"--model_name_or_path", "m", "--output_dir", "o"}, Command::kEvaluate),
            "--validation_file: missing; evaluation (--do_eval) needs a SQuAD JSON file");
  auto ev = parse({"--model_name_or_path", "m", "--output_dir", "o", "--validation_file", "v", "--learning_rate",
                   "1e-3"},
                  Command::kEvaluate);
  EXPECT_TRUE(ev.args.do_eval);
  EXPECT_FALSE(ev.args.do_train);
  EXPECT_EQ(ev.args.command, Command::kEvaluate);
  EXPECT_EQ(error_of({"--model_name_or_path", "m", "--output_dir", "o", "--test_file", "v", "--do_train"},
                     Command::kPredict),
            "--do_train: not available in `cpuft predict`; use `cpuft train`");
  EXPECT_EQ(error_of(base({"--max_seq_length", "128", "--doc_stride", "128"})),
            "--doc_stride: found 128, expected less than --max_seq_length (128)");
  // Classification (run_glue's --max_seq_length 128) has no overlapping windows.
  EXPECT_EQ(error_of(base({"--task", "text-classification", "--max_seq_length", "128"})), "(no error)");
}

TEST(Args, EnvironmentSetsAndFlagsOverride) {
  std::map<std::string, std::string> env = {{"CPUFT_THREADS", "12"}, {"CPUFT_OUTPUT_DIR", "/env/out"}};
  auto lookup = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  Flags f = {"--model_name_or_path", "m", "--train_file", "t"};
  auto r = cpuft::parse_train_args(Command::kTrain, f, lookup);
  EXPECT_EQ(r.args.threads, 12);
  EXPECT_EQ(r.args.output_dir, "/env/out");
  f.insert(f.end(), {"--threads", "3"});
  EXPECT_EQ(cpuft::parse_train_args(Command::kTrain, f, lookup).args.threads, 3);
  env["CPUFT_THREADS"] = "many";
  try {
    cpuft::parse_train_args(Command::kTrain, f, lookup);
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_STREQ(e.what(), "CPUFT_THREADS: found 'many', expected an integer in [0, 1024]");
  }
}

TEST(Args, HelpListsEveryFlagByGroupWithDefaults) {
  auto r = parse({"--help"});
  EXPECT_TRUE(r.help);  // no required-flag errors when asking for help
  const std::string help = cpuft::train_args_help(Command::kTrain);
  for (const auto& name : cpuft::train_flag_names())
    EXPECT_NE(help.find("  --" + name + " "), std::string::npos) << name;
  for (const auto& name : cpuft::ignored_flag_names()) EXPECT_NE(help.find(" --" + name), std::string::npos) << name;
  for (const char* group : {"\nModel:\n", "\nData:\n", "\nTraining:\n", "\nEvaluation:\n", "\nOutput:\n",
                            "\nDistributed:\n"})
    EXPECT_NE(help.find(group), std::string::npos) << group;
  EXPECT_NE(help.find("(range (0, 10], default: 5e-05)"), std::string::npos);
  EXPECT_NE(help.find("(range [1, 4096], default: 25)"), std::string::npos);  // --bucket_size_mb
  EXPECT_NE(help.find("(range [0, 86400], default: 300; env CPUFT_COLLECTIVE_TIMEOUT)"), std::string::npos);
  EXPECT_NE(help.find("--lr_scheduler_type linear|constant|constant_with_warmup|cosine"), std::string::npos);
  EXPECT_NE(help.find("env CPUFT_THREADS"), std::string::npos);
  EXPECT_LT(help.find("\nModel:\n"), help.find("\nDistributed:\n"));
}

TEST(Args, ParseCommand) {
  EXPECT_EQ(cpuft::parse_command("evaluate"), Command::kEvaluate);
  EXPECT_THROW(cpuft::parse_command("fit"), cpuft::Error);
}

TEST(Args, EvaluationDuringTrainingFollowsTrainingArguments) {
  const Flags dev = {"--validation_file", "d.json"};
  auto r = parse(base({"--eval_strategy", "steps", "--validation_file", "d.json"}));
  EXPECT_EQ(r.args.eval_strategy, cpuft::EvalStrategy::kSteps);
  EXPECT_TRUE(r.args.do_eval);  // as TrainingArguments sets it, so run_qa also evaluates at the end
  EXPECT_EQ(r.args.eval_steps, 0);  // 0: --logging_steps (step_plan)
  EXPECT_EQ(parse(base({"--evaluation_strategy", "epoch", "--validation_file", "d"})).args.eval_strategy,
            cpuft::EvalStrategy::kEpoch);  // the older spelling
  EXPECT_FALSE(parse(base()).args.do_eval);
  EXPECT_EQ(parse(base({"--eval_steps", "0.25"})).args.eval_steps, 0.25);
  EXPECT_EQ(parse(base({"--eval_steps", "40"})).args.eval_steps, 40);
  EXPECT_EQ(error_of(base({"--eval_strategy", "steps"})),
            "--eval_strategy steps: needs --validation_file (a SQuAD JSON file) to evaluate on");
  EXPECT_EQ(error_of(base({"--eval_strategy", "often"})), "--eval_strategy: found 'often', expected one of no steps epoch");
  EXPECT_EQ(error_of(base({"--eval_steps", "1.5"})),
            "--eval_steps: found '1.5', expected 0, an integer in [1, 1000000000], or a ratio in (0, 1)");
  // evaluate and predict take train's flags with a notice.
  auto ev = parse({"--model_name_or_path", "m", "--output_dir", "o", "--validation_file", "v", "--eval_strategy",
                   "steps"},
                  Command::kEvaluate);
  ASSERT_EQ(ev.notices.size(), 1u);
  EXPECT_EQ(ev.notices[0].rfind("--eval_strategy has no effect in cpuft evaluate", 0), 0u) << ev.notices[0];
}

TEST(Args, BestModelFlagsAndTheirChecks) {
  auto r = parse(base({"--validation_file", "d", "--eval_strategy", "steps", "--eval_steps", "50", "--save_steps",
                       "100", "--load_best_model_at_end", "--metric_for_best_model", "f1", "--greater_is_better",
                       "false"}));
  EXPECT_TRUE(r.args.load_best_model_at_end);
  EXPECT_EQ(r.args.metric_for_best_model, "f1");
  EXPECT_EQ(r.args.greater_is_better, false);
  EXPECT_FALSE(parse(base()).args.greater_is_better.has_value());
  EXPECT_EQ(parse(base({"--greater_is_better"})).args.greater_is_better, true);
  // TrainingArguments.__post_init__'s rules, as one-line errors.
  const Flags steps = {"--validation_file", "d", "--eval_strategy", "steps", "--load_best_model_at_end"};
  EXPECT_EQ(error_of(base({"--validation_file", "d", "--load_best_model_at_end"})),
            "--load_best_model_at_end: needs --save_strategy and --eval_strategy to match, found --eval_strategy no "
            "and --save_strategy steps");
  EXPECT_EQ(error_of(base({"--validation_file", "d", "--eval_strategy", "epoch", "--load_best_model_at_end"})),
            "--load_best_model_at_end: needs --save_strategy and --eval_strategy to match, found --eval_strategy "
            "epoch and --save_strategy steps");
  EXPECT_NO_THROW(parse(base({"--validation_file", "d", "--eval_strategy", "epoch", "--save_strategy", "epoch",
                              "--load_best_model_at_end"})));
  Flags f = base(steps);
  f.insert(f.end(), {"--eval_steps", "30", "--save_steps", "500"});
  EXPECT_EQ(error_of(f), "--load_best_model_at_end: needs --save_steps to be a multiple of --eval_steps; found "
                         "--save_steps 500 and --eval_steps 30");
  f = base(steps);
  f.insert(f.end(), {"--logging_steps", "200"});  // --eval_steps falls back to --logging_steps
  EXPECT_EQ(error_of(f), "--load_best_model_at_end: needs --save_steps to be a multiple of --eval_steps; found "
                         "--save_steps 500 and --eval_steps 200 (--logging_steps)");
  f = base(steps);
  f.insert(f.end(), {"--eval_steps", "0.1"});
  EXPECT_EQ(error_of(f), "--load_best_model_at_end: needs --save_steps to be a multiple of --eval_steps, which a "
                         "ratio and a step count cannot guarantee; found --save_steps 500 and --eval_steps 0.1");
  f = base(steps);
  f.insert(f.end(), {"--eval_steps", "0.1", "--save_steps", "0.3"});  // Python: 300000.0 % 100000.0 == 0
  EXPECT_NO_THROW(parse(f));
  f = base(steps);
  f.insert(f.end(), {"--eval_steps", "0.2", "--save_steps", "0.5"});
  EXPECT_EQ(error_of(f), "--load_best_model_at_end: needs --save_steps to be a multiple of --eval_steps; found "
                         "--save_steps 0.5 and --eval_steps 0.2");
  f = base(steps);
  f.insert(f.end(), {"--eval_steps", "250"});
  EXPECT_NO_THROW(parse(f));
}

TEST(Args, ReportToTakesTheTrainersIntegrations) {
  EXPECT_FALSE(parse(base()).args.reports_to_tensorboard());  // transformers 5's default: none
  EXPECT_TRUE(parse(base({"--report_to", "tensorboard"})).args.reports_to_tensorboard());
  EXPECT_TRUE(parse(base({"--report_to", "all"})).args.reports_to_tensorboard());
  EXPECT_FALSE(parse(base({"--report_to", "none"})).args.reports_to_tensorboard());
  auto r = parse(base({"--report_to", "wandb,tensorboard", "mlflow"}));
  EXPECT_EQ(r.args.report_to, (std::vector<std::string>{"wandb", "tensorboard", "mlflow"}));
  EXPECT_TRUE(r.args.reports_to_tensorboard());
  EXPECT_EQ(r.notices, (std::vector<std::string>{"--report_to wandb has no effect in cpuft: it reports to tensorboard only",
                                                 "--report_to mlflow has no effect in cpuft: it reports to tensorboard only"}));
  const std::string e = error_of(base({"--report_to", "tensorbored"}));
  EXPECT_EQ(e.rfind("--report_to: found 'tensorbored', expected none, all or one of: tensorboard azure_ml", 0), 0u) << e;
  EXPECT_EQ(parse(base({"--logging_dir", "tb"})).args.logging_dir, "tb");
  auto env = [](const char* name) -> const char* {
    return std::string(name) == "TENSORBOARD_LOGGING_DIR" ? "/env/tb" : nullptr;
  };
  EXPECT_EQ(cpuft::parse_train_args(Command::kTrain, base(), env).args.logging_dir, "/env/tb");
}
