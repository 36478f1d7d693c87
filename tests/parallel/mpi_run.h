// Runs a command line for the MPI tests, capturing its output, exit status and wall time.
#pragma once

#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace cpuft_test {

struct RunResult {
  int status = -1;  // exit status (128 + signal when killed)
  std::string output;  // stdout and stderr together
  double seconds = 0;
};

inline RunResult run_command(const std::string& cmd) {
  RunResult r;
  auto t0 = std::chrono::steady_clock::now();
  FILE* p = popen((cmd + " 2>&1 </dev/null").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t got;
  while ((got = fread(buf, 1, sizeof(buf), p)) > 0) r.output.append(buf, got);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// The environment mpirun and its ranks get: Open MPI refuses to run as root without the first two.
// In sanitizer builds the ranks skip leak checking: Open MPI keeps allocations past MPI_Finalize and
// unloads its components, so LeakSanitizer reports unreadable stacks that are not ours (the tests
// without mpirun still check our code for leaks).
inline void prepare_mpirun_env() {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  setenv("LSAN_OPTIONS", "detect_leaks=0", 1);
}

inline bool have_mpirun() { return run_command("mpirun --version").status == 0; }

// False when the helper was built without CPUFT_WITH_MPI (then every process is a world of one).
inline bool helper_has_mpi(const std::string& helper) {
  return run_command("timeout 60 mpirun --oversubscribe -np 1 " + helper + " info").output.find("mpi=1") !=
         std::string::npos;
}

}  // namespace cpuft_test
