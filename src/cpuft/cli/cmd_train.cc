// cpuft train / evaluate: parse run_qa-style flags (train/args.h) and run (train/trainer.h).
#include <cstdio>

#include "cpuft/cli/commands.h"
#include "cpuft/train/args.h"
#include "cpuft/train/trainer.h"
#include "cpuft/util/log.h"

namespace cpuft {
namespace {

// Parses the flags; prints help or notices. Returns false when only help was asked for.
bool parse(Command command, const Argv& argv, TrainArgs& out) {
  ParsedArgs parsed = parse_train_args(command, argv);
  if (parsed.help) {
    std::fputs(train_args_help(command).c_str(), stdout);
    return false;
  }
  for (const std::string& n : parsed.notices) log_notice(n);
  out = parsed.args;
  return true;
}

}  // namespace

int cmd_train(const Argv& argv, Communicator& comm) {
  TrainArgs args;
  if (!parse(Command::Train, argv, args)) return 0;
  if (!args.do_train && !args.do_eval)
    fail("cpuft train: nothing to do, expected --do_train and/or --do_eval (as run_qa.py)");
  return run_train(args, comm);
}

int cmd_evaluate(const Argv& argv, Communicator& comm) {
  TrainArgs args;
  if (!parse(Command::Evaluate, argv, args)) return 0;
  return run_evaluate(args, comm);
}

}  // namespace cpuft
