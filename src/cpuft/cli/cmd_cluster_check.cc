// cpuft cluster-check: checks every host of a hostfile before a multi-host job (dist/cluster_check.h).
#include <cstdio>

#include "cpuft/cli/commands.h"
#include "cpuft/dist/cluster_check_command.h"
#include "cpuft/flags/flag_values.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

const char* kClusterCheckHelp =
    "usage: cpuft cluster-check --hostfile FILE [--rsh-agent PATH] [--timeout S] [--mpirun PATH] [--mpi-arg ARG]...\n"
    "Checks that every host answers without a password prompt, then runs one rank per host under mpirun:\n"
    "same cpuft version and build, CPU features, cores, free memory, allreduce bandwidth and latency.\n"
    "Exits non-zero if anything is off.\n";

}  // namespace

int cmd_cluster_check(const Argv& argv, Communicator& comm) {
  ClusterCheckCommand c;
  c.version = CPUFT_VERSION;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& f = argv[i];
    if (f == "--help" || f == "-h") {
      if (comm.is_root()) std::fputs(kClusterCheckHelp, stdout);
      return 0;
    }
    if (i + 1 >= argv.size()) fail(f, ": missing value (see cpuft cluster-check --help)");
    const std::string& v = argv[++i];
    if (f == "--hostfile") c.hostfile = v;
    else if (f == "--rsh-agent") c.rsh_agent = v;
    else if (f == "--mpirun") c.mpirun = v;
    else if (f == "--mpi-arg") c.mpi_args.push_back(v);
    else if (f == "--timeout") c.timeout_s = flag_int(f, v);
    else fail("cpuft cluster-check: unknown flag '", f, "'");
  }
  if (c.hostfile.empty()) fail("cpuft cluster-check: --hostfile FILE is required");
  c.self_args = {"cluster-check", "--hostfile", c.hostfile};
  return run_cluster_check_command(c, comm);
}

}  // namespace cpuft
