#include "cpuft/flags/args.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "cpuft/flags/flag_table.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {

namespace {

const FlagSpec* find_flag(const std::string& name) {
  for (const auto& f : flag_table())
    if (f.name == name) return &f;
  return nullptr;
}

const IgnoredFlag* find_ignored(const std::string& name) {
  for (const auto& f : ignored_flags())
    if (f.name == name) return &f;
  return nullptr;
}

std::string closest_flag(const std::string& name) {
  if (name.size() > 64) return "";  // no flag is that long; edit distances to it would only cost time
  std::string best;
  size_t best_d = std::string::npos;
  std::vector<std::string> names = train_flag_names();
  for (const auto& n : ignored_flag_names()) names.push_back(n);
  for (const auto& n : names) {
    size_t d = edit_distance(name, n);
    if (d < best_d) best_d = d, best = n;
  }
  return best_d <= std::max<size_t>(2, name.size() / 3) ? best : std::string();
}

bool is_flag_token(const std::string& tok) { return tok.size() > 2 && tok.compare(0, 2, "--") == 0; }

void apply_environment(ParsedArgs* r, const EnvLookup& env) {
  for (const auto& f : flag_table()) {
    if (f.env.empty()) continue;
    const char* v = env ? env(f.env.c_str()) : std::getenv(f.env.c_str());
    if (!v) continue;
    std::string value = v;
    if (f.arity == FlagArity::Bool) {
      bool b = false;
      if (!parse_bool_word(value, &b)) fail(f.env, ": found '", text_preview(value), "', expected true or false");
      value = b ? "true" : "false";
    }
    f.set(r->args, value, f.env);
  }
}

// Checks that need every flag: required files for the command, window geometry, dataset hubs.
void check_combination(const ParsedArgs& r, const std::set<std::string>& given) {
  const TrainArgs& a = r.args;
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
  // evaluate writes next to the model and predict prints answers unless --output_dir is given.
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

}  // namespace

Command parse_command(const std::string& word) {
  for (Command c : {Command::Train, Command::Evaluate, Command::Predict})
    if (word == command_name(c)) return c;
  fail("command: found '", text_preview(word), "', expected one of train evaluate predict");
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string> train_flag_names() {
  std::vector<std::string> names;
  for (const auto& f : flag_table()) names.push_back(f.name);
  return names;
}

std::vector<std::string> ignored_flag_names() {
  std::vector<std::string> names;
  for (const auto& f : ignored_flags()) names.push_back(f.name);
  return names;
}

ParsedArgs parse_train_args(Command command, const std::vector<std::string>& flags, const EnvLookup& env) {
  ParsedArgs r;
  r.args.command = command;
  r.args.do_train = command == Command::Train;
  r.args.do_eval = command == Command::Evaluate;
  r.args.do_predict = command == Command::Predict;
  apply_environment(&r, env);

  std::set<std::string> given;
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string& tok = flags[i];
    if (tok == "--help" || tok == "-h") {
      r.help = true;
      continue;
    }
    if (!is_flag_token(tok))
      fail("unexpected argument '", text_preview(tok), "'; flags start with -- (see `cpuft ", command_name(command),
           " --help`)");
    std::string name = tok.substr(2);
    std::optional<std::string> inline_value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name.resize(eq);
    }
    const std::string who = "--" + name;
    const FlagSpec* spec = find_flag(name);
    const IgnoredFlag* ignored = spec ? nullptr : find_ignored(name);
    bool negated = false;
    if (!spec && !ignored && name.compare(0, 3, "no_") == 0) {  // --no_pad_to_max_length, as HfArgumentParser
      spec = find_flag(name.substr(3));
      negated = spec && spec->arity == FlagArity::Bool && !inline_value;
      if (!negated) spec = nullptr;
    }
    if (!spec && !ignored) {
      std::string hint = closest_flag(name);
      fail("unknown flag ", text_preview(who), hint.empty() ? "" : "; did you mean --" + hint + "?",
           " (`cpuft ", command_name(command), " --help` lists every flag)");
    }
    const FlagArity arity = spec ? spec->arity : ignored->arity;
    const std::string placeholder = spec ? spec->placeholder : "VALUE";
    std::string value;
    if (arity == FlagArity::Bool) {
      bool b = !negated;
      if (inline_value) {
        if (!parse_bool_word(*inline_value, &b))
          fail(who, ": found '", text_preview(*inline_value), "', expected true or false");
      } else if (!negated && i + 1 < flags.size() && parse_bool_word(flags[i + 1], &b)) {
        ++i;
      }
      value = b ? "true" : "false";
    } else if (inline_value) {
      value = *inline_value;
    } else {
      if (i + 1 >= flags.size() || is_flag_token(flags[i + 1]))
        fail(who, ": missing its value (", placeholder, ")");
      value = flags[++i];
      while (arity == FlagArity::Many && i + 1 < flags.size() && !is_flag_token(flags[i + 1]))
        value += " " + flags[++i];
    }
    given.insert(spec ? spec->name : name);
    if (spec) {
      spec->set(r.args, value, who);
      continue;
    }
    if (name == "fp16" && value == "true") fail("--fp16: ", ignored->why);
    std::string notice = who + " has no effect in cpuft: " + ignored->why;
    if (std::find(r.notices.begin(), r.notices.end(), notice) == r.notices.end()) r.notices.push_back(notice);
  }
  if (!r.help) check_combination(r, given);
  return r;
}

std::string train_args_help(Command command) {
  std::string out = std::string("usage: cpuft ") + command_name(command) + " [flags]\n";
  out += "Flags as run_qa.py / TrainingArguments: --flag VALUE or --flag=VALUE; booleans also as --flag, "
         "--flag true|false.\n";
  const TrainArgs defaults;
  for (const auto& group : flag_groups()) {
    out += "\n" + group + ":\n";
    for (const auto& f : flag_table()) {
      if (f.group != group) continue;
      std::string left = "  --" + f.name + (f.placeholder.empty() ? "" : " " + f.placeholder);
      if (left.size() < 44) left.resize(44, ' ');
      else left += "\n" + std::string(44, ' ');
      out += left + f.help + " (" + (f.range.empty() ? "" : "range " + f.range + ", ") + "default: " + f.show(defaults);
      if (!f.env.empty()) out += "; env " + f.env;
      out += ")\n";
    }
  }
  out += "\nAccepted for compatibility, with no effect:\n";
  std::string line = " ";
  for (const auto& f : ignored_flags()) {
    if (line.size() + f.name.size() + 3 > 100) out += line + "\n", line = " ";
    line += " --" + f.name;
  }
  out += line + "\n";
  return out;
}

}  // namespace cpuft
