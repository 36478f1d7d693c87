// cpuft launch and cpuft cluster-check: the multi-host entry points (dist/launcher.h,
// dist/cluster_check.h).
#include <cstdio>

#include "cpuft/cli/commands.h"
#include "cpuft/cli/flag_values.h"
#include "cpuft/dist/cluster_check_command.h"
#include "cpuft/dist/launcher.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

const char* kLaunchHelp =
    "usage: cpuft launch [--hostfile FILE] [--nproc_per_node K] [--threads_per_rank T] [--mpirun PATH]\n"
    "                    [--mpi-arg ARG]... [--dry-run] -- <command> [flags]\n"
    "Prints the mpirun command for the MPI found (Open MPI, MPICH or Intel MPI syntax) and runs it,\n"
    "e.g. cpuft launch --hostfile hosts --nproc_per_node 2 -- train --model_name_or_path ...\n";

const char* kClusterCheckHelp =
    "usage: cpuft cluster-check --hostfile FILE [--rsh-agent PATH] [--timeout S] [--mpirun PATH] [--mpi-arg ARG]...\n"
    "Checks that every host answers without a password prompt, then runs one rank per host under mpirun:\n"
    "same cpuft version and build, CPU features, cores, free memory, allreduce bandwidth and latency.\n"
    "Exits non-zero if anything is off.\n";

}  // namespace

int cmd_launch(const Argv& argv) {
  LaunchOptions o;
  bool dry_run = false;
  size_t i = 0;
  for (; i < argv.size(); ++i) {
    const std::string& f = argv[i];
    if (f == "--") {
      ++i;
      break;
    }
    if (f == "--help" || f == "-h") {
      std::fputs(kLaunchHelp, stdout);
      return 0;
    }
    if (f == "--dry-run") {
      dry_run = true;
      continue;
    }
    if (i + 1 >= argv.size()) fail(f, ": missing value (see cpuft launch --help)");
    const std::string& v = argv[++i];
    if (f == "--hostfile") o.hostfile = v;
    else if (f == "--nproc_per_node" || f == "--nproc-per-node") o.nproc_per_node = flag_int(f, v);
    else if (f == "--threads_per_rank" || f == "--threads-per-rank") o.threads_per_rank = flag_int(f, v);
    else if (f == "--mpirun") o.mpirun = v;
    else if (f == "--mpi-arg") o.mpi_args.push_back(v);
    else fail("cpuft launch: unknown flag '", f, "' (put the cpuft command after --)");
  }
  if (i >= argv.size()) fail("cpuft launch: no command after --, expected e.g. -- train --model_name_or_path ...");
  o.program.push_back(self_executable());
  o.program.insert(o.program.end(), argv.begin() + static_cast<long>(i), argv.end());
  std::vector<std::string> cmd = plan_launch(o);
  std::printf("%s\n", shell_join(cmd).c_str());
  std::fflush(stdout);
  if (dry_run) return 0;
  exec_command(cmd);
}

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
