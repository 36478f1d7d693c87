#include "cpuft/flags/args.h"

#include <set>

#include "cpuft/flags/flag_help.h"
#include "cpuft/flags/train_flags.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {

namespace {

// Checks that need every flag: required files for the command, window geometry, dataset hubs.
void check_combination(const TrainArgs& a, const std::set<std::string>& given) {
  const char* cmd = command_name(a.command);
  if (a.command != Command::Train && given.count("do_train") && a.do_train)
    fail("--do_train: not available in `cpuft ", cmd, "`; use `cpuft train`");
  const bool any_file = !a.train_file.empty() || !a.validation_file.empty() || !a.test_file.empty();
  for (const char* hub : {"dataset_name", "dataset_config_name"})
    if (given.count(hub) && !any_file)
      fail("--", hub, ": cpuft cannot reach dataset hubs; pass SQuAD JSON files instead, e.g. "
           "--train_file train-v1.1.json --validation_file dev-v1.1.json");
  if (a.model_name_or_path.empty())
    fail("--model_name_or_path: missing; `cpuft ", cmd, "` needs a Hugging Face model directory");
  // evaluate and predict check their --output_dir themselves, with what they would write there.
  if (a.output_dir.empty() && a.command == Command::Train)
    fail("--output_dir: missing; `cpuft ", cmd, "` needs a directory for its results");
  if (a.do_train && a.train_file.empty())
    fail("--train_file: missing; training needs a SQuAD JSON file");
  if (a.do_eval && a.validation_file.empty())
    fail("--validation_file: missing; evaluation (--do_eval) needs a SQuAD JSON file");
  // `cpuft predict` also answers --question/--context or JSON lines (checked by the command).
  if (a.do_predict && a.test_file.empty() && a.command != Command::Predict)
    fail("--test_file: missing; prediction (--do_predict) needs a SQuAD JSON file");
  if (a.doc_stride >= a.max_seq_length)
    fail("--doc_stride: found ", a.doc_stride, ", expected less than --max_seq_length (", a.max_seq_length, ")");
}

std::vector<std::string> names_of(FlagRole role) {
  TrainArgs unused;
  const FlagTable table = train_flags(Command::Train, unused);
  std::vector<std::string> names;
  for (const Flag& f : table.flags())
    if (f.role == role) names.push_back(f.name);
  return names;
}

}  // namespace

Command parse_command(const std::string& word) {
  for (Command c : {Command::Train, Command::Evaluate, Command::Predict})
    if (word == command_name(c)) return c;
  fail("command: found '", text_preview(word), "', expected one of train evaluate predict");
}

ParsedArgs parse_train_args(Command command, const std::vector<std::string>& flags, const EnvLookup& env) {
  ParsedArgs r;
  r.args.command = command;
  r.args.do_train = command == Command::Train;
  r.args.do_eval = command == Command::Evaluate;
  r.args.do_predict = command == Command::Predict;
  const FlagTable table = train_flags(command, r.args);
  ParsedFlags parsed = parse_flags(table, flags, env);
  r.help = parsed.help;
  r.notices = std::move(parsed.notices);
  if (!r.help) check_combination(r.args, parsed.given);
  return r;
}

std::string train_args_help(Command command) {
  TrainArgs defaults;
  return flag_help(train_flags(command, defaults));
}

std::vector<std::string> train_flag_names() { return names_of(FlagRole::Used); }
std::vector<std::string> ignored_flag_names() { return names_of(FlagRole::NoEffect); }

}  // namespace cpuft
