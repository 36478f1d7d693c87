// cpuft evaluate: run_qa.py --do_eval without training. Scores --validation_file with the model of
// --model_name_or_path and writes eval_predictions.json, eval_nbest_predictions.json, eval_results.json
// and all_results.json into --output_dir, which is required (as run_qa requires an output directory):
// the results never go into the model directory unasked.
#include <cstdio>

#include "cpuft/cli/commands.h"
#include "cpuft/flags/args.h"
#include "cpuft/flags/train_options.h"
#include "cpuft/infer/inference.h"
#include "cpuft/util/error.h"
#include "cpuft/util/log.h"

namespace cpuft {

int cmd_evaluate(const Argv& argv, Communicator& comm, const StartComm& start) {
  ParsedArgs parsed = parse_train_args(Command::kEvaluate, argv);
  if (parsed.help) {
    std::fputs(train_args_help(Command::kEvaluate).c_str(), stdout);
    return 0;
  }
  if (parsed.args.output_dir.empty())
    fail("--output_dir: missing, expected the directory to write the eval_* result files to (cpuft evaluate)");
  start(comm_options(parsed.args));
  for (const std::string& n : parsed.notices) log_notice(n);
  return run_evaluate(parsed.args, comm);
}

}  // namespace cpuft
