// cpuft launch: prints and runs the mpirun command for a hostfile (dist/launcher.h), or with --slurm
// writes and submits a batch script (dist/sbatch_script.h).
#include <unistd.h>

#include <cstdio>

#include "cpuft/cli/commands.h"
#include "cpuft/cpu/placement.h"
#include "cpuft/cpu/topology.h"
#include "cpuft/dist/launcher.h"
#include "cpuft/dist/sbatch_script.h"
#include "cpuft/flags/flag_values.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

const char* kLaunchHelp =
    "usage: cpuft launch [--hostfile FILE] [--nproc_per_node K] [--threads_per_rank T] [--mpirun PATH]\n"
    "                    [--mpi-arg ARG]... [--dry-run] -- <command> [flags]\n"
    "       cpuft launch --slurm [--nodes N] [--nproc_per_node K] [--threads_per_rank T] [--mpirun PATH]\n"
    "                    [--dry-run] -- <command> [flags]\n"
    "Prints the mpirun command for the MPI found (Open MPI, MPICH or Intel MPI syntax) and runs it,\n"
    "e.g. cpuft launch --hostfile hosts --nproc_per_node 2 -- train --model_name_or_path ...\n"
    "With --slurm, prints a Slurm batch script for N nodes x K ranks instead and submits it with sbatch:\n"
    "the ranks start with srun --mpi=pmix (or, given --mpirun, with that mpirun inside the allocation)\n"
    "and pin their threads as cpuft doctor --ranks-per-node K plans. Partition, time limit and account:\n"
    "sbatch's SBATCH_PARTITION, SBATCH_TIMELIMIT, SBATCH_ACCOUNT. --dry-run prints without running.\n";

// The batch script for --slurm, with this machine's placement plan for K ranks as comments.
std::string slurm_script(const LaunchOptions& o, int nodes, bool inside_mpirun) {
  SbatchOptions so;
  so.nodes = nodes;
  so.ranks_per_node = o.nproc_per_node;
  so.threads_per_rank = o.threads_per_rank;
  so.program = o.program;
  if (inside_mpirun) {
    LaunchOptions m = o;  // no hostfile: Open MPI, MPICH and Intel MPI read the allocation from Slurm
    m.hostfile.clear();
    m.nodes = nodes;
    so.mpirun = build_mpirun_command(detect_mpi_flavour(mpirun_version_output(o.mpirun)), m);
  }
  if (o.nproc_per_node >= 1) {
    const Topology topo = read_topology();
    PlacementOptions po;
    po.ranks_per_node = o.nproc_per_node;
    po.omp_threads = o.threads_per_rank > 0 ? o.threads_per_rank : omp_threads_from_env();
    po.reserve_core = o.nproc_per_node > 1;
    so.plan = plan_placement(topo, po).describe(topo);
  }
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) == 0) so.written_on = host;
  return sbatch_script(so);
}

}  // namespace

int cmd_launch(const Argv& argv) {
  LaunchOptions o;
  bool dry_run = false, slurm = false, mpirun_given = false;
  int nodes = 1;
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
    if (f == "--slurm") {
      slurm = true;
      continue;
    }
    if (i + 1 >= argv.size()) fail(f, ": missing value (see cpuft launch --help)");
    const std::string& v = argv[++i];
    if (f == "--hostfile") o.hostfile = v;
    else if (f == "--nproc_per_node" || f == "--nproc-per-node") o.nproc_per_node = flag_int(f, v);
    else if (f == "--threads_per_rank" || f == "--threads-per-rank") o.threads_per_rank = flag_int(f, v);
    else if (f == "--mpirun") o.mpirun = v, mpirun_given = true;
    else if (f == "--nodes") nodes = flag_int(f, v);
    else if (f == "--mpi-arg") o.mpi_args.push_back(v);
    else fail("cpuft launch: unknown flag '", f, "' (put the cpuft command after --)");
  }
  if (i >= argv.size()) fail("cpuft launch: no command after --, expected e.g. -- train --model_name_or_path ...");
  o.program.push_back(self_executable());
  o.program.insert(o.program.end(), argv.begin() + static_cast<long>(i), argv.end());
  if (slurm) {
    if (!o.hostfile.empty()) fail("--hostfile: not used with --slurm (Slurm chooses the nodes; give --nodes N)");
    if (!o.mpi_args.empty()) fail("--mpi-arg: not used with --slurm (edit the script printed by --dry-run)");
    const std::string script = slurm_script(o, nodes, mpirun_given);
    std::fputs(script.c_str(), stdout);
    if (dry_run) return 0;
    return submit_sbatch(script);
  }
  if (nodes != 1) fail("--nodes: only with --slurm (without it the hostfile's hosts are the nodes)");
  std::vector<std::string> cmd = plan_launch(o);
  std::printf("%s\n", shell_join(cmd).c_str());
  std::fflush(stdout);
  if (dry_run) return 0;
  exec_command(cmd);
}

}  // namespace cpuft
