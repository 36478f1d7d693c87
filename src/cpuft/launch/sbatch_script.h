// The Slurm batch script `cpuft launch --slurm` writes (and submits with sbatch): N nodes, K ranks per
// node, started by `srun --mpi=pmix` (or by mpirun inside the allocation), with the node's cores left
// to cpuft: each rank pins its threads to its own share of the node's physical cores as
// `cpuft doctor --ranks-per-node K` plans, so the script asks Slurm for whole nodes and no binding.
// Partition, time limit and account come from sbatch's own environment (SBATCH_PARTITION,
// SBATCH_TIMELIMIT, SBATCH_ACCOUNT) or from editing the printed script.
#pragma once

#include <string>
#include <vector>

namespace cpuft {

struct SbatchOptions {
  int nodes = 1;
  int ranks_per_node = 1;
  int threads_per_rank = 0;             // > 0: exported as OMP_NUM_THREADS; 0: cpuft's plan on each node
  std::vector<std::string> mpirun;      // empty: srun --mpi=pmix; else the mpirun command (build_mpirun_command)
                                        // to run inside the allocation, program included
  std::vector<std::string> program;     // e.g. {"/path/cpuft", "train", "--model_name_or_path", ...}
  std::string plan;                     // the placement planned where the script is written (comment lines)
  std::string written_on;               // that host's name
};

// The script text; throws naming the option when nodes, ranks_per_node or the program are missing.
std::string sbatch_script(const SbatchOptions& options);

// Runs `sbatch` with the script on its standard input; returns sbatch's exit status (it prints the
// job id). Throws when sbatch cannot be run.
int submit_sbatch(const std::string& script);

}  // namespace cpuft
