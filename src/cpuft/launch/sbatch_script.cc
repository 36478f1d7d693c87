#include "cpuft/launch/sbatch_script.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "cpuft/launch/launcher.h"
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
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fail("cannot run sbatch: ", std::strerror(errno));
  // sbatch is started directly (no shell): that it cannot be found is known here, before any write.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
  char name[] = "sbatch";
  char* argv[] = {name, nullptr};
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, name, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[0]);
  if (spawned != 0) {
    ::close(fds[1]);
    if (spawned == ENOENT)
      fail("cannot run sbatch (not found), expected Slurm's sbatch on PATH; --dry-run prints the script only");
    fail("cannot run sbatch: ", std::strerror(spawned));
  }
  // An sbatch that exits before reading all of the script closes the pipe: the write then fails with
  // EPIPE (reported below) instead of SIGPIPE ending cpuft.
  struct sigaction ignore {}, before {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &before);
  size_t written = 0;
  while (written < script.size()) {
    const ssize_t n = ::write(fds[1], script.data() + written, script.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  ::close(fds[1]);
  ::sigaction(SIGPIPE, &before, nullptr);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status)) fail("sbatch: ended by signal ", WTERMSIG(status));
  if (written < script.size()) fail("sbatch: could not pass it the script (it exited early, status ", WEXITSTATUS(status), ")");
  return WEXITSTATUS(status);
}

}  // namespace cpuft
