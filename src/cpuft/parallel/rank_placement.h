// Placement of this rank's compute threads (see cpu/placement.h), decided with the other ranks of the
// node. Ranks compare the CPUs the launcher allowed them: identical sets (mpirun --bind-to none, the
// cpuft launch default) mean the node is shared, so the plan for local_size ranks is made and this
// rank takes entry local_rank; pairwise disjoint sets mean the launcher already bound each rank
// (--bind-to core), so the plan is one rank on its own set. Overlapping but different sets are
// planned as one rank each, with a warning (threads of several ranks may then share cores).
#pragma once

#include <string>

#include "cpuft/cpu/placement.h"
#include "cpuft/parallel/communicator.h"

namespace cpuft {

struct LocalPlacement {
  Topology topology;        // what this rank may use
  PlacementPlan plan;       // for all ranks of the node, or for this rank alone when bound
  int plan_index = 0;       // this rank's entry in plan.ranks
  bool launcher_bound = false;
  const RankPlacement& mine() const { return plan.ranks[plan_index]; }
};

// Collective over comm (every rank calls it). options.ranks_per_node is replaced by what the launcher
// did; options.omp_threads 0 means OMP_NUM_THREADS (if set) or one thread per core. When `pin`, this
// rank's OpenMP threads are pinned to mine().thread_cpus.
LocalPlacement place_this_rank(Communicator& comm, PlacementOptions options, bool pin);

}  // namespace cpuft
