#include "cpuft/flags/args.h"

#include <cmath>
#include <set>

#include "cpuft/flags/flag_help.h"
#include "cpuft/flags/train_flags.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {

namespace {

// TrainingArguments' rule for --load_best_model_at_end: the best model must have been saved, so the
// checkpoints are written when evaluations happen (same strategy) and, by steps, at every evaluation
// step's multiple. The values compared are the flags as given (a ratio stays a ratio), as there.
void check_best_model_flags(const TrainArgs& a) {
  const char* eval = eval_strategy_name(a.eval_strategy);
  const char* save = save_strategy_name(a.save_strategy);
  if (std::string(eval) != save)
    fail("--load_best_model_at_end: needs --save_strategy and --eval_strategy to match, found --eval_strategy ", eval,
         " and --save_strategy ", save);
  if (a.eval_strategy != EvalStrategy::kSteps) return;
  const double every = a.eval_steps == 0 ? a.logging_steps : a.eval_steps;
  const std::string found = str_cat("found --save_steps ", show_number(a.save_steps), " and --eval_steps ",
                                    show_number(every), a.eval_steps == 0 ? " (--logging_steps)" : "");
  if (std::fmod(a.save_steps, every) == 0) return;
  if ((every < 1) != (a.save_steps < 1))
    fail("--load_best_model_at_end: needs --save_steps to be a multiple of --eval_steps, which a ratio and a step "
         "count cannot guarantee; ", found);
  // Python's (save * 1e6) % (eval * 1e6), the Trainer's test for two ratios.
  if (every >= 1 || std::fmod(a.save_steps * 1e6, every * 1e6) != 0)
    fail("--load_best_model_at_end: needs --save_steps to be a multiple of --eval_steps; ", found);
}

// Checks that need every flag: required files for the command, window geometry, dataset hubs.
void check_combination(const TrainArgs& a, const std::set<std::string>& given) {
  const char* cmd = command_name(a.command);
  if (a.command != Command::kTrain && given.count("do_train") && a.do_train)
    fail("--do_train: not available in `cpuft ", cmd, "`; use `cpuft train`");
  const bool any_file = !a.train_file.empty() || !a.validation_file.empty() || !a.test_file.empty();
  for (const char* hub : {"dataset_name", "dataset_config_name"})
    if (given.count(hub) && !any_file)
      fail("--", hub, ": cpuft cannot reach dataset hubs; pass SQuAD JSON files instead, e.g. "
           "--train_file train-v1.1.json --validation_file dev-v1.1.json");
  if (a.model_name_or_path.empty())
    fail("--model_name_or_path: missing; `cpuft ", cmd, "` needs a Hugging Face model directory");
  // evaluate and predict check their --output_dir themselves, with what they would write there.
  if (a.output_dir.empty() && a.command == Command::kTrain)
    fail("--output_dir: missing; `cpuft ", cmd, "` needs a directory for its results");
  if (a.do_train && a.train_file.empty())
    fail("--train_file: missing; training needs a SQuAD JSON file");
  if (a.command == Command::kTrain && a.eval_strategy != EvalStrategy::kNo && a.validation_file.empty())
    fail("--eval_strategy ", eval_strategy_name(a.eval_strategy),
         ": needs --validation_file (a SQuAD JSON file) to evaluate on");
  if (a.do_eval && a.validation_file.empty())
    fail("--validation_file: missing; evaluation (--do_eval) needs a SQuAD JSON file");
  // `cpuft predict` also answers --question/--context or JSON lines (checked by the command).
  if (a.do_predict && a.test_file.empty() && a.command != Command::kPredict)
    fail("--test_file: missing; prediction (--do_predict) needs a SQuAD JSON file");
  // Windows with overlap are question answering's; a classification run (run_glue's default
  // --max_seq_length 128) never uses --doc_stride. evaluate / predict take the task from the model,
  // so there the feature builder checks each SQuAD example's room instead (as tokenizers does).
  if (a.command == Command::kTrain && a.task == TaskHead::kQuestionAnswering && a.doc_stride >= a.max_seq_length)
    fail("--doc_stride: found ", a.doc_stride, ", expected less than --max_seq_length (", a.max_seq_length, ")");
  if (a.command == Command::kTrain && a.load_best_model_at_end) check_best_model_flags(a);
}

std::vector<std::string> names_of(FlagRole role) {
  TrainArgs unused;
  const FlagTable table = train_flags(Command::kTrain, unused);
  std::vector<std::string> names;
  for (const Flag& f : table.flags())
    if (f.role == role) names.push_back(f.name);
  return names;
}

}  // namespace

Command parse_command(const std::string& word) {
  for (Command c : {Command::kTrain, Command::kEvaluate, Command::kPredict})
    if (word == command_name(c)) return c;
  fail("command: found '", text_preview(word), "', expected one of train evaluate predict");
}

ParsedArgs parse_train_args(Command command, const std::vector<std::string>& flags, const EnvLookup& env) {
  ParsedArgs r;
  r.args.command = command;
  r.args.do_train = command == Command::kTrain;
  r.args.do_eval = command == Command::kEvaluate;
  r.args.do_predict = command == Command::kPredict;
  const FlagTable table = train_flags(command, r.args);
  ParsedFlags parsed = parse_flags(table, flags, env);
  r.help = parsed.help;
  r.notices = std::move(parsed.notices);
  if (r.help) return r;
  // TrainingArguments: evaluating during training means evaluating (run_qa then also evaluates at the end).
  if (command == Command::kTrain && r.args.eval_strategy != EvalStrategy::kNo) r.args.do_eval = true;
  check_combination(r.args, parsed.given);
  r.given = std::move(parsed.given);
  if (command == Command::kTrain)
    for (const std::string& name : r.args.report_to)
      if (name != "none" && name != "all" && name != "tensorboard")
        r.notices.push_back("--report_to " + name + " has no effect in cpuft: it reports to tensorboard only");
  return r;
}

std::string train_args_help(Command command) {
  TrainArgs defaults;
  return flag_help(train_flags(command, defaults));
}

std::vector<std::string> train_flag_names() { return names_of(FlagRole::kUsed); }
std::vector<std::string> ignored_flag_names() { return names_of(FlagRole::kNoEffect); }

}  // namespace cpuft
