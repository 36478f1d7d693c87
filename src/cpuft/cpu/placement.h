// Where the compute threads of K ranks sharing one node run. The node's physical cores, in NUMA
// order, are cut into K equal shares (rank r's share starts at core r*C/K, so shares follow NUMA node
// and socket boundaries whenever K divides them evenly) and each rank runs on the first cores of its
// own share. SMT siblings are left out by default because two GEMM threads on one core only slow each
// other down; one core is left for MPI progress and the OS when every rank still keeps at least two
// cores. The cores of a share that run no compute thread are the rank's spare CPUs (its MPI progress
// thread runs there). OMP_NUM_THREADS, when set, decides the thread count.
#pragma once

#include <string>
#include <vector>

#include "cpuft/cpu/topology.h"

namespace cpuft {

struct PlacementOptions {
  int ranks_per_node = 1;
  int omp_threads = 0;        // 0: one thread per physical core of the rank (OMP_NUM_THREADS unset)
  bool use_smt = false;       // also run threads on SMT siblings
  bool reserve_core = true;   // leave one core for MPI/OS when each rank keeps >= 2 cores
};

struct RankPlacement {
  int local_rank = 0;
  std::vector<int> cores;        // indices into Topology::cores given to this rank
  std::vector<int> thread_cpus;  // logical CPU of OpenMP thread i (size = thread count)
  std::vector<int> spare_cpus;   // primary CPUs of the share's cores without a compute thread
};

struct PlacementPlan {
  std::vector<RankPlacement> ranks;  // one per local rank
  int cores_per_rank = 0;
  int reserved_cores = 0;            // left for MPI progress / OS
  int unused_cores = 0;              // left over because cores do not divide evenly
  bool oversubscribed = false;
  std::vector<std::string> warnings;

  // Several lines: one per rank ("rank 0: 3 threads on cpus 0,1,2 (cores 0-2, node 0)"), then warnings.
  std::string describe(const Topology& topo) const;
};

// OMP_NUM_THREADS as a positive integer, 0 when unset; throws cpuft::Error when it is not a number.
int omp_threads_from_env();

// Computes the plan for options.ranks_per_node ranks on `topo`; throws when ranks_per_node < 1.
PlacementPlan plan_placement(const Topology& topo, const PlacementOptions& options);

// Sets the OpenMP thread count to cpus.size() and pins thread i to cpus[i] (sched_setaffinity from
// inside a parallel region, so the pool threads themselves are bound). Throws when a CPU is refused.
void pin_omp_threads(const std::vector<int>& cpus);

// Formats CPUs compactly: {0,1,2,5} -> "0-2,5".
std::string format_cpu_list(const std::vector<int>& cpus);

}  // namespace cpuft
