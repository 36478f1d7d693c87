// Two "hosts" made by scripts/netns-cluster.sh (network + UTS namespaces on a private bridge): a real
// multi-node Open MPI job over TCP. Skipped where namespaces cannot be made (not root, no ip netns).
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "cpuft/launch/cluster_check.h"
#include "parallel/mpi_run.h"
#include "parallel/netns_hosts.h"

namespace {

class NetnsCluster : public ::testing::Test {
 protected:
  void SetUp() override {
    cpuft_test::prepare_mpirun_env();
    if (std::string why = cpuft_test::NetnsHosts::unavailable(); !why.empty()) GTEST_SKIP() << why;
    if (!cpuft_test::have_mpirun()) GTEST_SKIP() << "mpirun not found";
    if (!cpuft_test::helper_has_mpi(CPUFT_PARALLEL_HELPER)) GTEST_SKIP() << "built without MPI";
    if (std::string failed = hosts_.up(2, 2); !failed.empty())
      GTEST_SKIP() << "cannot create namespaces here: " << failed;
  }
  void TearDown() override { hosts_.down(); }
  cpuft_test::RunResult mpirun(int per_node, const std::string& args) {
    return cpuft_test::run_command("timeout 120 mpirun --oversubscribe --bind-to none -x LSAN_OPTIONS " +
                                   hosts_.mpirun_flags() + " -np " + std::to_string(2 * per_node) + " --map-by ppr:" +
                                   std::to_string(per_node) + ":node " CPUFT_PARALLEL_HELPER " " + args);
  }
  cpuft_test::NetnsHosts hosts_;
};

TEST_F(NetnsCluster, TwoHosts) {
  std::vector<cpuft::HostReachability> reach =
      cpuft::check_hosts_reachable({hosts_.host(1), hosts_.host(2), hosts_.host(9)}, hosts_.agent(), 5);
  ASSERT_EQ(reach.size(), 3u);
  EXPECT_TRUE(reach[0].ok) << reach[0].detail;
  EXPECT_TRUE(reach[1].ok) << reach[1].detail;
  EXPECT_FALSE(reach[2].ok);
  EXPECT_NE(reach[2].detail.find("no namespace " + hosts_.host(9)), std::string::npos) << reach[2].detail;

  cpuft_test::RunResult info = mpirun(2, "info");
  ASSERT_EQ(info.status, 0) << info.output;
  EXPECT_NE(info.output.find("rank=3 size=4 local_rank=1 local_size=2 nodes=2 host=" + hosts_.host(2)),
            std::string::npos)
      << info.output;

  cpuft_test::RunResult check = mpirun(1, "cluster-check " + hosts_.host(1) + " " + hosts_.host(2));
  ASSERT_EQ(check.status, 0) << check.output;
  EXPECT_NE(check.output.find("1    " + hosts_.host(2)), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("cluster-check: OK"), std::string::npos) << check.output;
  std::printf("%s", check.output.c_str());  // the measured bandwidth and latency, for the log

  // `cpuft cluster-check` itself: reachability first, then itself under mpirun with the bridge-only
  // transport (each of mpirun's flags one --mpi-arg).
  std::string mpi_args;
  for (size_t b = 0, e; b < hosts_.transport_flags().size(); b = e + 1) {
    e = hosts_.transport_flags().find(' ', b);
    if (e == std::string::npos) e = hosts_.transport_flags().size();
    mpi_args += " --mpi-arg " + hosts_.transport_flags().substr(b, e - b);
  }
  cpuft_test::RunResult cmd = cpuft_test::run_command("timeout 120 " CPUFT_BINARY " cluster-check --hostfile " +
                                                      hosts_.hostfile() + " --rsh-agent " + hosts_.agent() +
                                                      " --timeout 5" + mpi_args);
  EXPECT_EQ(cmd.status, 0) << cmd.output;
  EXPECT_NE(cmd.output.find(hosts_.host(2) + "             reachable"), std::string::npos) << cmd.output;
  EXPECT_NE(cmd.output.find("mpirun -np 2 --hostfile"), std::string::npos) << cmd.output;
  EXPECT_NE(cmd.output.find("cluster-check: OK"), std::string::npos) << cmd.output;

  cpuft_test::RunResult buckets = mpirun(2, "buckets 100000 40000 f32");
  EXPECT_EQ(buckets.status, 0) << buckets.output;

  cpuft_test::RunResult abort = mpirun(1, "abort 1");
  EXPECT_NE(abort.status, 0);
  EXPECT_LT(abort.seconds, 30) << abort.output;
  EXPECT_NE(abort.output.find("cpuft: rank 1 of 2 on " + hosts_.host(2) + ": injected failure"), std::string::npos)
      << abort.output;
}

}  // namespace
