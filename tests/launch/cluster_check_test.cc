#include "cpuft/launch/cluster_check.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "cpuft/util/error.h"

namespace {

// A world of one (no mpirun): the check sees this process only.

TEST(ClusterCheck, ReportsThisHost) {
  cpuft::HostReport h = cpuft::local_host_report("1.2.3");
  EXPECT_EQ(h.version, "1.2.3");
  EXPECT_EQ(h.build_id.size(), 16u);
  EXPECT_EQ(h.build_id, cpuft::executable_build_id());  // the same executable hashes the same
  EXPECT_GE(h.physical_cores, 1);
  EXPECT_GE(h.logical_cpus, h.physical_cores);
  EXPECT_GT(h.mem_total_gib, 0);
  EXPECT_GT(h.mem_available_gib, 0);
}

TEST(ClusterCheck, MissingHostIsAProblem) {
  cpuft::Communicator comm;
  char name[256] = {0};
  gethostname(name, sizeof(name) - 1);
  cpuft::ClusterCheckResult ok = cpuft::run_cluster_check(comm, "v", {std::string(name) + ".example.org"}, 1 << 20, 10);
  EXPECT_TRUE(ok.problems.empty());
  ASSERT_EQ(ok.ranks.size(), 1u);
  std::string table = cpuft::format_cluster_check(ok);
  EXPECT_NE(table.find("allreduce 1 MiB"), std::string::npos) << table;
  EXPECT_NE(table.find("cluster-check: OK"), std::string::npos) << table;

  cpuft::ClusterCheckResult bad = cpuft::run_cluster_check(comm, "v", {name, "node-77"}, 1 << 20, 10);
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_NE(bad.problems[0].find("host node-77 of the hostfile runs no rank"), std::string::npos);
  EXPECT_NE(cpuft::format_cluster_check(bad).find("cluster-check: FAILED"), std::string::npos);
}

TEST(ClusterCheck, UnreachableHostsAreReported) {
  // `false` stands for an ssh that cannot log in; a missing agent fails the same way.
  std::vector<cpuft::HostReachability> r = cpuft::check_hosts_reachable({"a", "b"}, "false", 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_FALSE(r[0].ok);
  EXPECT_EQ(r[0].detail, "exit status 1");
  std::vector<cpuft::HostReachability> ok = cpuft::check_hosts_reachable({"a"}, "true", 2);
  EXPECT_TRUE(ok[0].ok);
  EXPECT_FALSE(cpuft::check_hosts_reachable({"a"}, "/nonexistent/ssh", 2)[0].ok);
}

// The agent gets "--" before the host name, and a host name that is not one never reaches it.
TEST(ClusterCheck, HostsReachTheAgentOnlyAsNames) {
  const std::string dir = "/tmp/cpuft-agent-test-" + std::to_string(getpid());
  ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  const std::string agent = dir + "/agent";
  std::ofstream(agent) << "#!/bin/sh\nprintf '%s\\n' \"$@\" > " << dir << "/args\n";
  ASSERT_EQ(std::system(("chmod +x " + agent).c_str()), 0);
  ASSERT_TRUE(cpuft::check_hosts_reachable({"node-1"}, agent, 2)[0].ok);
  std::ifstream in(dir + "/args");
  std::string args((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(args, "-o\nBatchMode=yes\n-o\nConnectTimeout=2\n--\nnode-1\ntrue\n");
  EXPECT_THROW(cpuft::check_hosts_reachable({"-oProxyCommand=touch${IFS}" + dir + "/PWNED"}, agent, 2), cpuft::Error);
  EXPECT_EQ(std::system(("test -e " + dir + "/PWNED").c_str()) == 0, false);
  EXPECT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

}  // namespace

namespace {

cpuft::HostReport report(int rank, const std::string& host, const std::string& version, const std::string& build,
                         const std::string& isa) {
  cpuft::HostReport h;
  h.rank = rank;
  h.hostname = host;
  h.version = version;
  h.build_id = build;
  h.isa = isa;
  h.cpu = "cpu-" + isa;
  return h;
}

TEST(ClusterCheck, DifferentVersionsAndBuildsAreProblems) {
  cpuft::ClusterCheckResult r;
  r.ranks = {report(0, "n1.cluster", "0.1.0", "aaaa", "avx2"), report(1, "n2", "0.2.0", "bbbb", "avx2"),
             report(2, "n3", "0.1.0", "cccc", "avx512")};
  cpuft::find_cluster_problems(&r, {"n1", "n2", "n3"});
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_EQ(r.problems[0], "rank 1 on n2 runs cpuft 0.2.0, expected 0.1.0 as on rank 0");
  EXPECT_EQ(r.problems[1], "rank 2 on n3 runs build cccc, expected build aaaa as on rank 0");
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("different kernel ISAs"), std::string::npos);
}

}  // namespace
