// The subcommands of the cpuft executable. Each takes the arguments after its name and returns the
// process exit code; errors are thrown as cpuft::Error and reported by main().
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cpuft/parallel/communicator.h"

namespace cpuft {

using Argv = std::vector<std::string>;

// Joins MPI (when launched by mpirun) with the options the flags chose. The commands that run under
// mpirun call it once their flags are checked, so that a bad flag is reported before any work.
using StartComm = std::function<void(const CommOptions&)>;

// Commands that may run under mpirun (they start MPI through `start`):
int cmd_train(const Argv& args, Communicator& comm, const StartComm& start);          // train [+ evaluate]
int cmd_evaluate(const Argv& args, Communicator& comm, const StartComm& start);       // evaluate on SQuAD JSON
int cmd_predict(const Argv& args, Communicator& comm, const StartComm& start);        // answer questions
int cmd_bench(const Argv& args, Communicator& comm, const StartComm& start);          // time training steps
int cmd_cluster_check(const Argv& args, Communicator& comm, const StartComm& start);  // check a hostfile's hosts
int cmd_quantize(const Argv& args, Communicator& comm, const StartComm& start);       // int8 model for evaluate
// Commands of one process:
int cmd_doctor(const Argv& args);      // what cpuft sees on this machine
int cmd_launch(const Argv& args);      // print and run the mpirun command
int cmd_init_model(const Argv& args);  // a random model from a config.json

}  // namespace cpuft
