// The two phases of `cpuft cluster-check --hostfile FILE`. Started by hand (not under mpirun), the
// command checks that every host answers the rsh agent / ssh without a prompt, then starts itself
// under mpirun with one rank per host. Under mpirun, the ranks run run_cluster_check and rank 0 prints
// the table. The exit status is 0 only when every host answered and nothing is off.
#pragma once

#include <string>
#include <vector>

#include "cpuft/dist/communicator.h"

namespace cpuft {

struct ClusterCheckCommand {
  std::string hostfile;
  std::string rsh_agent;             // empty: $OMPI_MCA_plm_rsh_agent, else "ssh"
  int timeout_s = 10;                // per host, for the reachability check
  std::string mpirun = "mpirun";
  std::vector<std::string> mpi_args;  // passed to mpirun (e.g. --mca btl tcp,self)
  std::vector<std::string> self_args;  // arguments that restart this command, e.g. {"cluster-check", "--hostfile", F}
  std::string version;               // cpuft version to compare across hosts
};

// Runs the phase that fits comm (comm.using_mpi(): the collective check). Outside mpirun it does not
// return when every host answered: it replaces the process with mpirun (printing the command first).
int run_cluster_check_command(const ClusterCheckCommand& command, Communicator& comm);

}  // namespace cpuft
