#include "cpuft/parallel/rank_placement.h"

#include <algorithm>
#include <set>

#include "cpuft/util/error.h"

namespace cpuft {

LocalPlacement place_this_rank(Communicator& comm, PlacementOptions options, bool pin) {
  if (options.omp_threads == 0) options.omp_threads = omp_threads_from_env();
  const std::vector<int> mine = allowed_cpus();
  std::vector<std::string> all = comm.allgather_bytes(comm.hostname() + "\t" + format_cpu_list(mine));
  const std::string my_prefix = comm.hostname() + "\t";
  std::vector<std::vector<int>> node_sets;  // allowed CPUs of every rank on this host
  for (const std::string& entry : all)
    if (entry.compare(0, my_prefix.size(), my_prefix) == 0)
      node_sets.push_back(parse_cpu_list(entry.substr(my_prefix.size()), "allowed CPUs of a rank"));

  bool identical = std::all_of(node_sets.begin(), node_sets.end(), [&](const std::vector<int>& s) { return s == mine; });
  bool disjoint = true;
  std::set<int> seen;
  for (const auto& s : node_sets)
    for (int c : s) disjoint = seen.insert(c).second && disjoint;

  LocalPlacement lp;
  lp.topology = read_topology(mine);
  if (identical) {
    options.ranks_per_node = comm.local_size();
    lp.plan = plan_placement(lp.topology, options);
    lp.plan_index = comm.local_rank();
  } else {
    lp.launcher_bound = true;
    options.ranks_per_node = 1;
    options.reserve_core = false;  // the launcher's binding already decided what this rank may use
    lp.plan = plan_placement(lp.topology, options);
    if (!disjoint)
      lp.plan.warnings.push_back("the launcher gave the ranks of this node overlapping CPU sets; "
                                 "threads of several ranks share cores");
  }
  if (pin) pin_omp_threads(lp.mine().thread_cpus);
  return lp;
}

}  // namespace cpuft
