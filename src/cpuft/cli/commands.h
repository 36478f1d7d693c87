// The subcommands of the cpuft executable. Each takes the arguments after its name and returns the
// process exit code; errors are thrown as cpuft::Error and reported by main().
#pragma once

#include <string>
#include <vector>

#include "cpuft/dist/communicator.h"

namespace cpuft {

using Argv = std::vector<std::string>;

int cmd_train(const Argv& args, Communicator& comm);          // train [+ evaluate]
int cmd_evaluate(const Argv& args, Communicator& comm);       // evaluate a model on SQuAD JSON
int cmd_predict(const Argv& args, Communicator& comm);        // answer questions (JSON lines or flags)
int cmd_doctor(const Argv& args);                             // what cpuft sees on this machine
int cmd_bench(const Argv& args);                              // time training steps
int cmd_launch(const Argv& args);                             // print and run the mpirun command
int cmd_init_model(const Argv& args);                         // a random model from a config.json
int cmd_cluster_check(const Argv& args, Communicator& comm);  // check the hosts of a hostfile
int cmd_quantize(const Argv& args, Communicator& comm);       // an int8 model for evaluate / predict

}  // namespace cpuft
