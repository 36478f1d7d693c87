// `cpuft launch`: builds the mpirun/mpiexec command line for the MPI installed here and runs it.
// cpuft pins its own threads (cpu/placement.h), so the launcher maps K ranks per node and, by
// default, asks the MPI not to bind them (each rank must see the whole node to pick its own cores).
#pragma once

#include <string>
#include <vector>

namespace cpuft {

enum class MpiFlavour { kOpenMpi, kMpich, kIntelMpi, kUnknown };

const char* mpi_flavour_name(MpiFlavour f);

// From the output of `mpirun --version`: "Open MPI" / "OpenRTE", "HYDRA" (MPICH), "Intel(R) MPI".
MpiFlavour detect_mpi_flavour(const std::string& version_output);

// Runs `<mpirun> --version` and returns what it printed (stdout and stderr); throws when it cannot run.
std::string mpirun_version_output(const std::string& mpirun);

// Host names of a hostfile: "host", "host slots=K", "host:K"; '#' starts a comment. Throws naming
// the file when it cannot be read (a regular file of at most 1 MiB), lists no host, or names a host
// that is_valid_host_name refuses (naming the line).
std::vector<std::string> read_hostfile_hosts(const std::string& path);

// A host name cpuft hands to ssh / mpirun: 1-253 letters, digits, dots and hyphens, starting with a
// letter or digit. Anything else (a leading '-' would be read as an option: "-oProxyCommand=...") is
// refused.
bool is_valid_host_name(const std::string& host);

struct LaunchOptions {
  std::string mpirun = "mpirun";
  std::string hostfile;             // empty: this machine only
  int nodes = 1;                    // hosts to use (normally the hostfile's host count)
  int nproc_per_node = 1;
  int threads_per_rank = 0;         // > 0: exported as OMP_NUM_THREADS
  int cores_per_rank = 0;           // with bind_to_core: cores bound to each rank
  bool bind_to_core = false;        // let the MPI bind ranks (then cpuft plans inside that binding)
  std::vector<std::string> mpi_args;  // passed through before the program
  std::vector<std::string> program;   // e.g. {"/path/cpuft", "train", "--model_name_or_path", ...}
};

// The argv to exec, e.g. for Open MPI:
// mpirun -np 4 --hostfile H --map-by ppr:2:node --bind-to none -x OMP_NUM_THREADS=8 cpuft train ...
std::vector<std::string> build_mpirun_command(MpiFlavour flavour, const LaunchOptions& options);

// What `cpuft launch` runs: nodes = the hostfile's host count (1 without a hostfile), the flavour of
// options.mpirun from its --version output, then build_mpirun_command.
std::vector<std::string> plan_launch(LaunchOptions options);

// Quotes for a POSIX shell only where needed, so the printed command can be pasted.
std::string shell_join(const std::vector<std::string>& argv);

// The absolute path of the running program (/proc/self/exe), for re-running it under mpirun.
std::string self_executable();

// Replaces this process with argv (execvp); throws cpuft::Error when it cannot.
[[noreturn]] void exec_command(const std::vector<std::string>& argv);

}  // namespace cpuft
