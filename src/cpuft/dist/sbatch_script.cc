#include "cpuft/dist/sbatch_script.h"

#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "cpuft/dist/launcher.h"
#include "cpuft/util/error.h"

namespace cpuft {

std::string sbatch_script(const SbatchOptions& o) {
  if (o.nodes < 1) fail("--nodes: found ", o.nodes, ", expected at least 1");
  if (o.ranks_per_node < 1) fail("--nproc_per_node: found ", o.ranks_per_node, ", expected at least 1");
  if (o.program.empty()) fail("launch --slurm: no program given, expected '-- train ...'");
  const std::string k = std::to_string(o.ranks_per_node);
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Written by `cpuft launch --slurm`; submit with: sbatch THIS_FILE\n"
    << "#SBATCH --job-name=cpuft\n"
    << "#SBATCH --nodes=" << o.nodes << "\n"
    << "#SBATCH --ntasks-per-node=" << k << "\n"
    << "#SBATCH --exclusive\n"
    << "#\n"
    << "# cpuft pins its own threads: on every node, each of the " << k << " ranks takes its own share of the\n"
    << "# physical cores (SMT siblings unused; on nodes big enough, a core left for MPI and the OS), as\n"
    << "# `cpuft doctor --ranks-per-node " << k << "` plans; so the tasks get whole nodes and no Slurm binding.\n";
  if (!o.plan.empty()) {
    s << "# The plan on " << (o.written_on.empty() ? std::string("the machine this was written on") : o.written_on)
      << " (the compute nodes may differ; each rank logs its own):\n";
    std::istringstream lines(o.plan);
    for (std::string line; std::getline(lines, line);) s << "#   " << line << "\n";
  }
  s << "set -euo pipefail\n";
  if (o.threads_per_rank > 0) s << "export OMP_NUM_THREADS=" << o.threads_per_rank << "\n";
  if (o.mpirun.empty()) {
    std::vector<std::string> cmd = {"srun", "--mpi=pmix", "--cpu-bind=none"};
    cmd.insert(cmd.end(), o.program.begin(), o.program.end());
    s << shell_join(cmd) << "\n";
  } else {
    s << "# mpirun takes the nodes of the allocation from Slurm.\n" << shell_join(o.mpirun) << "\n";
  }
  return s.str();
}

int submit_sbatch(const std::string& script) {
  std::fflush(stdout);
  FILE* p = popen("sbatch", "w");
  if (!p) fail("cannot run sbatch: ", std::strerror(errno));
  const bool written = std::fwrite(script.data(), 1, script.size(), p) == script.size();
  const int status = pclose(p);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) == 127)
    fail("cannot run sbatch (not found?), expected Slurm's sbatch on PATH; --dry-run prints the script only");
  if (!written) fail("sbatch: could not pass it the script (it exited early)");
  return WEXITSTATUS(status);
}

}  // namespace cpuft
