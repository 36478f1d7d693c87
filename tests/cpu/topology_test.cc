#include "cpuft/cpu/topology.h"

#include <gtest/gtest.h>

#include <numeric>

#include "cpu/fake_sysfs.h"
#include "cpuft/util/error.h"

namespace {

std::vector<int> iota(int n) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(CpuList, ParsesRangesAndSingles) {
  EXPECT_EQ(cpuft::parse_cpu_list("0-3,8,10-11\n", "x"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(cpuft::parse_cpu_list("", "x"), std::vector<int>{});
}

TEST(CpuList, RejectsBadSyntaxNamingTheFile) {
  try {
    cpuft::parse_cpu_list("3-1", "/sys/x/cpulist");
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/sys/x/cpulist"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cpuft::parse_cpu_list("0-a", "f"), cpuft::Error);
}

TEST(Topology, TwoSocketsWithSmt) {
  cpuft_test::FakeSysfs fs;
  cpuft_test::make_two_socket_smt(fs);
  cpuft::Topology t = cpuft::read_topology(iota(16), fs.root());
  ASSERT_EQ(t.cores.size(), 8u);
  EXPECT_EQ(t.logical_cpus, 16);
  EXPECT_EQ(t.numa_nodes, 2);
  EXPECT_TRUE(t.has_smt());
  EXPECT_EQ(t.cores[0].cpus, (std::vector<int>{0, 8}));
  EXPECT_EQ(t.cores[0].numa_node, 0);
  EXPECT_EQ(t.cores[4].cpus, (std::vector<int>{4, 12}));
  EXPECT_EQ(t.cores[4].numa_node, 1);
}

TEST(Topology, RestrictedToAllowedCpus) {
  cpuft_test::FakeSysfs fs;
  cpuft_test::make_two_socket_smt(fs);
  cpuft::Topology t = cpuft::read_topology({0, 1, 9}, fs.root());
  ASSERT_EQ(t.cores.size(), 2u);
  EXPECT_EQ(t.cores[1].cpus, (std::vector<int>{1, 9}));
  EXPECT_EQ(t.logical_cpus, 3);
  EXPECT_EQ(t.numa_nodes, 1);
}

TEST(Topology, CpusWithoutTopologyFilesAreCoresOfTheirOwn) {
  cpuft_test::FakeSysfs fs;
  cpuft::Topology t = cpuft::read_topology(iota(3), fs.root());
  ASSERT_EQ(t.cores.size(), 3u);
  EXPECT_FALSE(t.has_smt());
}

TEST(Topology, BadCoreIdNamesTheFile) {
  cpuft_test::FakeSysfs fs;
  fs.write("cpu/cpu0/topology/core_id", "x");
  try {
    cpuft::read_topology({0}, fs.root());
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cpu0/topology/core_id"), std::string::npos) << e.what();
  }
}

TEST(Topology, ThisMachineHasTheAllowedCpus) {
  cpuft::Topology t = cpuft::read_topology();
  EXPECT_EQ(t.logical_cpus, static_cast<int>(cpuft::allowed_cpus().size()));
  EXPECT_GE(t.cores.size(), 1u);
}

}  // namespace
