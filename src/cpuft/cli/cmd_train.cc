// cpuft train: parse run_qa-style flags (flags/args.h) and run (train/trainer.h). `cpuft evaluate` is
// cmd_evaluate.cc.
#include <cstdio>

#include "cpuft/cli/commands.h"
#include "cpuft/flags/args.h"
#include "cpuft/flags/train_options.h"
#include "cpuft/train/trainer.h"
#include "cpuft/util/log.h"

namespace cpuft {
namespace {

// Parses the flags, then joins MPI and prints the notices (on rank 0). Returns false when only help
// was asked for.
bool parse(Command command, const Argv& argv, const StartComm& start, TrainArgs& out) {
  ParsedArgs parsed = parse_train_args(command, argv);
  if (parsed.help) {
    std::fputs(train_args_help(command).c_str(), stdout);
    return false;
  }
  if (command == Command::kTrain && !parsed.args.do_train && !parsed.args.do_eval)
    fail("cpuft train: nothing to do, expected --do_train and/or --do_eval (as run_qa.py)");
  start(comm_options(parsed.args));
  for (const std::string& n : parsed.notices) log_notice(n);
  out = parsed.args;
  return true;
}

}  // namespace

int cmd_train(const Argv& argv, Communicator& comm, const StartComm& start) {
  TrainArgs args;
  if (!parse(Command::kTrain, argv, start, args)) return 0;
  return run_train(args, comm);
}

}  // namespace cpuft
