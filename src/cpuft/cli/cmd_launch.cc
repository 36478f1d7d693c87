// cpuft launch: prints and runs the mpirun command for a hostfile (launch/launcher.h), or with --slurm
// writes and submits a batch script (launch/sbatch_script.h).
#include <unistd.h>

#include <cstdio>

#include "cpuft/cli/commands.h"
#include "cpuft/cpu/placement.h"
#include "cpuft/cpu/topology.h"
#include "cpuft/flags/flag_help.h"
#include "cpuft/flags/flag_parser.h"
#include "cpuft/launch/launcher.h"
#include "cpuft/launch/sbatch_script.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

const char* kLaunchAbout =
    "Prints the mpirun command for the MPI found (Open MPI, MPICH or Intel MPI syntax) and runs it, e.g.\n"
    "  cpuft launch --hostfile hosts --nproc_per_node 2 -- train --model_name_or_path ...\n"
    "Everything after -- is the cpuft command each rank runs; the flags of launch come before it.\n"
    "With --slurm, prints a Slurm batch script for N nodes x K ranks instead and submits it with sbatch:\n"
    "the ranks start with srun --mpi=pmix (or, given --mpirun, with that mpirun inside the allocation)\n"
    "and pin their threads as cpuft doctor --ranks-per-node K plans. Partition, time limit and account:\n"
    "sbatch's SBATCH_PARTITION, SBATCH_TIMELIMIT, SBATCH_ACCOUNT.\n";

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
  bool dry_run = false, slurm = false;
  int nodes = 1;
  constexpr int64_t kMaxCount = 1000000;  // far from overflowing nodes x ranks x threads
  FlagTable t("launch", kLaunchAbout);
  t.text("hostfile", "FILE", &o.hostfile, "the hosts to run on, one per line").with_default_text("this machine");
  t.integer("nproc_per_node", &o.nproc_per_node, 1, kMaxCount, "ranks per host")
      .with_placeholder("K")
      .with_alias("nproc-per-node");
  t.integer("threads_per_rank", &o.threads_per_rank, 1, kMaxCount, "OpenMP threads of each rank (OMP_NUM_THREADS)")
      .with_placeholder("T")
      .with_alias("threads-per-rank")
      .with_default_text("each rank plans its own");
  t.text("mpirun", "PATH", &o.mpirun, "the mpirun to run (its --version tells the MPI)");
  // Its values are mpirun's own flags ("--mpi-arg --mca --mpi-arg btl ..."), so they may start with --.
  t.text_list("mpi-arg", "ARG", &o.mpi_args, "one more argument for mpirun, before the program").with_raw_value();
  t.boolean("dry-run", &dry_run, "print the command (or batch script) without running it");
  t.boolean("slurm", &slurm, "write and submit a Slurm batch script instead of running mpirun");
  t.integer("nodes", &nodes, 1, kMaxCount, "nodes the Slurm job asks for (with --slurm)");
  t.rest_after_dashes("<command> [flags]");
  const ParsedFlags parsed = parse_flags(t, argv);
  if (parsed.help) {
    std::fputs(flag_help(t).c_str(), stdout);
    return 0;
  }
  if (parsed.rest.empty())
    fail("cpuft launch: no command after --, expected e.g. -- train --model_name_or_path ...");
  o.program.push_back(self_executable());
  o.program.insert(o.program.end(), parsed.rest.begin(), parsed.rest.end());
  const bool mpirun_given = parsed.given.count("mpirun") > 0;
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
