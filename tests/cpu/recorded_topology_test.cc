// Placement on machines bigger than the test machine: the plans for recorded topologies
// (tests/fixtures/cpu/*.lscpu, the layout of `lscpu -p`, turned into a sysfs tree): the reference job's
// 32-core Sapphire Rapids node (with and without sub-NUMA clustering), a 2-socket Sapphire Rapids
// node, and a 2-socket AMD EPYC with 4 NUMA nodes per socket. What must hold for K ranks per node:
// every rank gets the same number of cores, inside its own K-th of the node; no two compute threads
// share a physical core (SMT siblings unused); a rank whose share fits in one NUMA node (or socket)
// stays in it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cpu/fake_sysfs.h"
#include "cpuft/cpu/placement.h"
#include "cpuft/cpu/topology.h"

namespace {

cpuft::Topology recorded(const std::string& name) {
  cpuft_test::FakeSysfs fs;
  std::vector<int> cpus = cpuft_test::load_lscpu(fs, CPUFT_FIXTURES "/cpu/" + name);
  return cpuft::read_topology(cpus, fs.root());
}

// The physical core (index into topo.cores) that runs logical CPU `cpu`.
int core_of(const cpuft::Topology& topo, int cpu) {
  for (size_t i = 0; i < topo.cores.size(); ++i)
    for (int c : topo.cores[i].cpus)
      if (c == cpu) return static_cast<int>(i);
  ADD_FAILURE() << "cpu " << cpu << " is not in the topology";
  return -1;
}

int packages_of(const cpuft::Topology& topo) {
  std::set<int> p;
  for (const cpuft::PhysicalCore& c : topo.cores) p.insert(c.package);
  return static_cast<int>(p.size());
}

// Checks the rules above for K ranks; returns the plan.
cpuft::PlacementPlan check_plan(const cpuft::Topology& topo, int k, int expect_threads) {
  cpuft::PlacementOptions o;
  o.ranks_per_node = k;
  const cpuft::PlacementPlan plan = cpuft::plan_placement(topo, o);
  EXPECT_FALSE(plan.oversubscribed);
  EXPECT_TRUE(plan.warnings.empty());
  EXPECT_EQ(static_cast<int>(plan.ranks.size()), k);
  const int C = static_cast<int>(topo.cores.size());
  std::set<int> used_cores;
  for (const cpuft::RankPlacement& r : plan.ranks) {
    SCOPED_TRACE("local rank " + std::to_string(r.local_rank));
    EXPECT_EQ(static_cast<int>(r.thread_cpus.size()), expect_threads);
    std::set<int> nodes, packages;
    for (int cpu : r.thread_cpus) {
      const int core = core_of(topo, cpu);
      EXPECT_TRUE(used_cores.insert(core).second) << "two compute threads on the core of cpu " << cpu;
      EXPECT_EQ(cpu, topo.cores[core].cpus[0]) << "cpu " << cpu << " is an SMT sibling";
      EXPECT_GE(core, r.local_rank * C / k) << "cpu " << cpu << " is outside the rank's share";
      EXPECT_LT(core, (r.local_rank + 1) * C / k) << "cpu " << cpu << " is outside the rank's share";
      nodes.insert(topo.cores[core].numa_node);
      packages.insert(topo.cores[core].package);
    }
    // A share that fits in one NUMA node or one socket stays there.
    if (topo.numa_nodes % k == 0) {
      EXPECT_EQ(nodes.size(), static_cast<size_t>(topo.numa_nodes / k));
    }
    if (k % topo.numa_nodes == 0) {
      EXPECT_EQ(nodes.size(), 1u);
    }
    if (k % packages_of(topo) == 0) {
      EXPECT_EQ(packages.size(), 1u);
    }
    for (int cpu : r.spare_cpus) EXPECT_TRUE(used_cores.insert(core_of(topo, cpu)).second) << "spare cpu " << cpu;
  }
  return plan;
}

TEST(RecordedTopology, ReferenceNodeTwoRanksGetOwnHalvesWithoutSiblings) {
  const cpuft::Topology topo = recorded("spr-32c-smt.lscpu");
  ASSERT_EQ(topo.cores.size(), 32u);
  EXPECT_EQ(topo.logical_cpus, 64);
  EXPECT_TRUE(topo.has_smt());
  EXPECT_EQ(topo.cores[5].cpus, (std::vector<int>{5, 37}));
  // 31 usable cores (one for MPI and the OS): 15 per rank, each in its own half.
  const cpuft::PlacementPlan plan = check_plan(topo, 2, 15);
  EXPECT_EQ(plan.reserved_cores, 1);
  EXPECT_EQ(cpuft::format_cpu_list(plan.ranks[0].thread_cpus), "0-14");
  EXPECT_EQ(cpuft::format_cpu_list(plan.ranks[1].thread_cpus), "16-30");
  EXPECT_EQ(plan.ranks[0].spare_cpus, (std::vector<int>{15}));
  EXPECT_EQ(plan.ranks[1].spare_cpus, (std::vector<int>{31}));
  // With OMP_NUM_THREADS=16 a rank gets its whole half (the spare core too would be a 17th).
  cpuft::PlacementOptions o;
  o.ranks_per_node = 2;
  o.reserve_core = false;
  const cpuft::PlacementPlan whole = cpuft::plan_placement(topo, o);
  EXPECT_EQ(cpuft::format_cpu_list(whole.ranks[1].thread_cpus), "16-31");
}

TEST(RecordedTopology, ReferenceNodeWithSubNumaClusteringIsNumaLocal) {
  const cpuft::Topology topo = recorded("spr-32c-smt-snc2.lscpu");
  ASSERT_EQ(topo.numa_nodes, 2);
  const cpuft::PlacementPlan plan = check_plan(topo, 2, 15);
  EXPECT_NE(plan.describe(topo).find("local rank 1: 15 thread(s) on cpus 16-30 (NUMA node 1; spare cpus 31"),
            std::string::npos)
      << plan.describe(topo);
  check_plan(topo, 4, 7);
}

TEST(RecordedTopology, TwoSocketSapphireRapids) {
  const cpuft::Topology topo = recorded("spr-2s-112c-smt.lscpu");
  ASSERT_EQ(topo.cores.size(), 112u);
  EXPECT_EQ(topo.logical_cpus, 224);
  EXPECT_EQ(topo.numa_nodes, 2);
  const cpuft::PlacementPlan two = check_plan(topo, 2, 55);  // one rank per socket
  EXPECT_EQ(cpuft::format_cpu_list(two.ranks[1].thread_cpus), "56-110");
  check_plan(topo, 4, 27);
  check_plan(topo, 1, 111);  // the whole node but the core for MPI and the OS
}

TEST(RecordedTopology, TwoSocketEpycWithFourNumaNodesPerSocket) {
  const cpuft::Topology topo = recorded("epyc-2s-128c-nps4.lscpu");
  ASSERT_EQ(topo.cores.size(), 128u);
  EXPECT_EQ(topo.numa_nodes, 8);
  EXPECT_EQ(topo.cores[127].cpus, (std::vector<int>{127, 255}));
  check_plan(topo, 2, 63);                                   // a socket (4 NUMA nodes) each
  const cpuft::PlacementPlan eight = check_plan(topo, 8, 15);  // one NUMA node each
  EXPECT_EQ(cpuft::format_cpu_list(eight.ranks[5].thread_cpus), "80-94");
  check_plan(topo, 16, 7);                                   // half a NUMA node each
}

}  // namespace
