#include "cpuft/cpu/placement.h"

#include <omp.h>
#include <sched.h>
#include <stdlib.h>

#include <gtest/gtest.h>

#include <numeric>
#include <set>

#include "cpu/fake_sysfs.h"
#include "cpuft/util/error.h"

namespace {

cpuft::Topology two_socket() {
  cpuft_test::FakeSysfs fs;
  cpuft_test::make_two_socket_smt(fs);
  std::vector<int> all(16);
  std::iota(all.begin(), all.end(), 0);
  return cpuft::read_topology(all, fs.root());
}

TEST(Placement, TwoRanksGetDisjointCoresWithoutSiblingsAndOneCoreReserved) {
  cpuft::Topology t = two_socket();
  cpuft::PlacementPlan p = cpuft::plan_placement(t, {2, 0, false, true});
  EXPECT_EQ(p.reserved_cores, 1);
  EXPECT_EQ(p.cores_per_rank, 3);
  EXPECT_EQ(p.unused_cores, 1);
  ASSERT_EQ(p.ranks.size(), 2u);
  // Each rank stays in its own socket (share); the last core of each share is spare.
  EXPECT_EQ(p.ranks[0].thread_cpus, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(p.ranks[1].thread_cpus, (std::vector<int>{4, 5, 6}));
  EXPECT_EQ(p.ranks[0].spare_cpus, (std::vector<int>{3}));
  EXPECT_EQ(p.ranks[1].spare_cpus, (std::vector<int>{7}));
  EXPECT_FALSE(p.oversubscribed);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(Placement, NoReservedCoreWhenRanksWouldDropBelowTwoCores) {
  cpuft::PlacementPlan p = cpuft::plan_placement(two_socket(), {4, 0, false, true});
  EXPECT_EQ(p.reserved_cores, 0);
  EXPECT_EQ(p.cores_per_rank, 2);
  std::set<int> seen;
  for (const auto& r : p.ranks)
    for (int c : r.thread_cpus) EXPECT_TRUE(seen.insert(c).second) << "cpu " << c << " used twice";
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_EQ(p.ranks[3].thread_cpus, (std::vector<int>{6, 7}));
}

TEST(Placement, SmtAddsSiblingsAfterPrimaryThreads) {
  cpuft::PlacementPlan p = cpuft::plan_placement(two_socket(), {1, 0, true, false});
  ASSERT_EQ(p.ranks[0].thread_cpus.size(), 16u);
  EXPECT_EQ(p.ranks[0].thread_cpus[0], 0);
  EXPECT_EQ(p.ranks[0].thread_cpus[8], 8);
}

TEST(Placement, HonoursOmpNumThreadsAndWarnsWhenOversubscribed) {
  cpuft::PlacementPlan few = cpuft::plan_placement(two_socket(), {2, 2, false, true});
  EXPECT_EQ(few.ranks[1].thread_cpus, (std::vector<int>{4, 5}));
  EXPECT_TRUE(few.warnings.empty());
  cpuft::PlacementPlan many = cpuft::plan_placement(two_socket(), {2, 8, false, true});
  EXPECT_EQ(many.ranks[0].thread_cpus.size(), 8u);
  ASSERT_EQ(many.warnings.size(), 1u);
  EXPECT_NE(many.warnings[0].find("OMP_NUM_THREADS=8"), std::string::npos) << many.warnings[0];
}

TEST(Placement, MoreRanksThanCoresIsOversubscribed) {
  cpuft::PlacementPlan p = cpuft::plan_placement(two_socket(), {12, 0, false, true});
  EXPECT_TRUE(p.oversubscribed);
  EXPECT_EQ(p.ranks.size(), 12u);
  EXPECT_EQ(p.ranks[9].thread_cpus, (std::vector<int>{1}));
  EXPECT_FALSE(p.warnings.empty());
  EXPECT_THROW(cpuft::plan_placement(two_socket(), {0, 0, false, true}), cpuft::Error);
}

TEST(Placement, DescribeNamesEveryRank) {
  cpuft::Topology t = two_socket();
  std::string d = cpuft::plan_placement(t, {2, 0, false, true}).describe(t);
  EXPECT_NE(d.find("local rank 0: 3 thread(s) on cpus 0-2 (NUMA node 0; spare cpus 3 for MPI progress)"),
            std::string::npos) << d;
  EXPECT_NE(d.find("local rank 1: 3 thread(s) on cpus 4-6 (NUMA node 1; spare cpus 7 for MPI progress)"),
            std::string::npos) << d;
  EXPECT_NE(d.find("1 reserved"), std::string::npos) << d;
}

TEST(Placement, FormatCpuList) {
  EXPECT_EQ(cpuft::format_cpu_list({5, 0, 1, 2, 7, 8}), "0-2,5,7-8");
  EXPECT_EQ(cpuft::format_cpu_list({}), "");
}

TEST(Placement, OmpThreadsFromEnv) {
  unsetenv("OMP_NUM_THREADS");
  EXPECT_EQ(cpuft::omp_threads_from_env(), 0);
  setenv("OMP_NUM_THREADS", "6,2", 1);
  EXPECT_EQ(cpuft::omp_threads_from_env(), 6);
  setenv("OMP_NUM_THREADS", "lots", 1);
  try {
    cpuft::omp_threads_from_env();
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_NE(std::string(e.what()).find("OMP_NUM_THREADS"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("lots"), std::string::npos);
  }
  unsetenv("OMP_NUM_THREADS");
}

TEST(Placement, PinsEveryOpenMpThreadToItsCpu) {
  cpuft::Topology t = cpuft::read_topology();
  cpuft::PlacementPlan p = cpuft::plan_placement(t, {1, 0, true, false});
  std::vector<int> cpus = p.ranks[0].thread_cpus;
  cpu_set_t saved;
  sched_getaffinity(0, sizeof(saved), &saved);
  cpuft::pin_omp_threads(cpus);
  std::vector<int> where(cpus.size(), -1);
#pragma omp parallel num_threads(static_cast<int>(cpus.size()))
  {
    cpu_set_t s;
    sched_getaffinity(0, sizeof(s), &s);
    if (CPU_COUNT(&s) == 1)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &s)) where[omp_get_thread_num()] = c;
  }
  EXPECT_EQ(where, cpus);
  // Unpin so that the other tests of this binary see the whole machine.
#pragma omp parallel num_threads(static_cast<int>(cpus.size()))
  sched_setaffinity(0, sizeof(saved), &saved);
  EXPECT_THROW(cpuft::pin_omp_threads({}), cpuft::Error);
}

}  // namespace
