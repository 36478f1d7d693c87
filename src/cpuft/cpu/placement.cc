#include "cpuft/cpu/placement.h"

#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {

int omp_threads_from_env() {
  const char* env = std::getenv("OMP_NUM_THREADS");
  if (!env || !*env) return 0;
  // OMP_NUM_THREADS may be a nesting list "8,2"; the first level is ours.
  std::string first(env, std::strcspn(env, ","));
  char* end = nullptr;
  long v = std::strtol(first.c_str(), &end, 10);
  if (end == first.c_str() || *end != '\0' || v < 1 || v > 4096)
    fail("environment OMP_NUM_THREADS: found '", text_preview(env), "', expected a positive thread count");
  return static_cast<int>(v);
}

PlacementPlan plan_placement(const Topology& topo, const PlacementOptions& options) {
  const int k = options.ranks_per_node;
  if (k < 1) fail("ranks per node: found ", k, ", expected at least 1");
  const int cores = static_cast<int>(topo.cores.size());
  if (cores == 0) fail("CPU topology: no allowed CPU found, expected at least one");
  PlacementPlan plan;
  if (options.reserve_core && (cores - 1) / k >= 2) plan.reserved_cores = 1;
  const int usable = cores - plan.reserved_cores;
  plan.cores_per_rank = usable / k;
  if (plan.cores_per_rank == 0) {
    // More ranks than cores: share cores round-robin and say so.
    plan.oversubscribed = true;
    plan.cores_per_rank = 1;
    plan.warnings.push_back(str_cat("oversubscribed: ", k, " ranks per node on ", cores,
                                    " physical cores; ranks share cores"));
  } else {
    plan.unused_cores = usable - plan.cores_per_rank * k;
  }
  for (int r = 0; r < k; ++r) {
    RankPlacement rp;
    rp.local_rank = r;
    if (plan.oversubscribed) {
      rp.cores.push_back(r % cores);
    } else {
      // The share [first, next) holds at least cores_per_rank cores; its tail is spare.
      const int first = static_cast<int>(int64_t{r} * cores / k), next = static_cast<int>(int64_t{r + 1} * cores / k);
      for (int c = first; c < next; ++c)
        (c < first + plan.cores_per_rank ? rp.cores : rp.spare_cpus).push_back(c);
      for (int& c : rp.spare_cpus) c = topo.cores[c].cpus[0];
    }
    // Primary threads of every core first, then (if allowed) the siblings, so that a thread count
    // below the CPU count still gets one thread per core.
    std::vector<int> cpus;
    size_t depth = options.use_smt ? 64 : 1;
    for (size_t level = 0; level < depth; ++level) {
      bool any = false;
      for (int c : rp.cores)
        if (level < topo.cores[c].cpus.size()) cpus.push_back(topo.cores[c].cpus[level]), any = true;
      if (!any) break;
    }
    int threads = options.omp_threads > 0 ? options.omp_threads : static_cast<int>(cpus.size());
    for (int t = 0; t < threads; ++t) rp.thread_cpus.push_back(cpus[t % cpus.size()]);
    if (threads > static_cast<int>(cpus.size()) && r == 0)
      plan.warnings.push_back(str_cat("oversubscribed: OMP_NUM_THREADS=", threads, " but each rank has ",
                                      cpus.size(), options.use_smt ? " logical CPUs" : " physical cores",
                                      "; threads share CPUs"));
    plan.ranks.push_back(std::move(rp));
  }
  return plan;
}

std::string format_cpu_list(const std::vector<int>& cpus_in) {
  std::vector<int> cpus = cpus_in;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::ostringstream os;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (i) os << ',';
    os << cpus[i];
    if (j > i) os << '-' << cpus[j];
    i = j + 1;
  }
  return os.str();
}

std::string PlacementPlan::describe(const Topology& topo) const {
  std::ostringstream os;
  os << "placement: " << ranks.size() << " rank(s) per node on " << topo.cores.size() << " physical cores ("
     << topo.logical_cpus << " logical CPUs, " << topo.numa_nodes << " NUMA node(s)"
     << (topo.has_smt() ? ", SMT" : "") << "); " << cores_per_rank << " core(s) per rank, " << reserved_cores
     << " reserved for MPI/OS, " << unused_cores << " unused\n";
  for (const RankPlacement& rp : ranks) {
    std::set<int> nodes;
    for (int c : rp.cores) nodes.insert(topo.cores[c].numa_node);
    os << "  local rank " << rp.local_rank << ": " << rp.thread_cpus.size() << " thread(s) on cpus "
       << format_cpu_list(rp.thread_cpus) << " (NUMA node " << format_cpu_list({nodes.begin(), nodes.end()});
    if (!rp.spare_cpus.empty()) os << "; spare cpus " << format_cpu_list(rp.spare_cpus) << " for MPI progress";
    os << ")\n";
  }
  for (const std::string& w : warnings) os << "  warning: " << w << "\n";
  return os.str();
}

void pin_omp_threads(const std::vector<int>& cpus) {
  if (cpus.empty()) fail("pin_omp_threads: empty CPU list, expected at least one CPU");
  const int n = static_cast<int>(cpus.size());
  omp_set_num_threads(n);
  int failed_cpu = -1, failed_errno = 0;
#pragma omp parallel num_threads(n)
  {
    int t = omp_get_thread_num();
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpus[t], &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
#pragma omp critical
      {
        failed_cpu = cpus[t];
        failed_errno = errno;
      }
    }
  }
  if (failed_cpu >= 0)
    fail("pinning OpenMP threads: CPU ", failed_cpu, " refused (", std::strerror(failed_errno),
         "), expected one of the allowed CPUs");
}

}  // namespace cpuft
