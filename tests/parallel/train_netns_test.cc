// Real multi-host training on one machine: two network-namespace hosts from scripts/netns-cluster.sh,
// one rank each, talking over TCP on the private bridge only (btl tcp,self: no shared memory between
// the hosts). The job must train like a single process with the same global batch, and
// `cpuft cluster-check --hostfile` must pass on the same hosts. Skipped where namespaces cannot be
// made (not root, no ip netns).
#include <unistd.h>

#include <gtest/gtest.h>

#include "parallel/netns_hosts.h"
#include "parallel/train_e2e.h"

namespace {

class TrainNetns : public cpuft_test::TrainE2E {
 protected:
  void SetUp() override {
    TrainE2E::SetUp();
    if (HasFatalFailure()) return;
    if (std::string why = cpuft_test::NetnsHosts::unavailable(); !why.empty()) GTEST_SKIP() << why;
    if (!mpi_usable()) GTEST_SKIP() << "mpirun not found or cpuft built without MPI";
    if (std::string failed = hosts_.up(2, 2); !failed.empty())
      GTEST_SKIP() << "cannot create namespaces here: " << failed;
    ASSERT_NE(hosts_.mpirun_flags().find("--mca btl tcp,self"), std::string::npos) << hosts_.mpirun_flags();
  }
  void TearDown() override {
    hosts_.down();
    TrainE2E::TearDown();
  }

  cpuft_test::NetnsHosts hosts_;
};

TEST_F(TrainNetns, TwoHostsOverTcpTrainLikeOneProcess) {
  const std::string args = "--max_train_samples 32 --num_train_epochs 2";
  const std::string one = train(1, "single", args + " --per_device_train_batch_size 8");

  const std::string two = dir_ + "/hosts";
  cpuft_test::RunResult r = cpuft_test::run_command(
      "timeout 120 mpirun --oversubscribe --bind-to none -np 2 --map-by ppr:1:node " + hosts_.mpirun_flags() +
      " " CPUFT_BINARY
      " train " + cpuft_test::common_train_flags(model_) + " --output_dir " + two + " " + args +
      " --per_device_train_batch_size 4");
  ASSERT_EQ(r.status, 0) << r.output;
  std::printf("[ 2 namespace hosts x 1 rank: %.1f s ]\n", r.seconds);
  EXPECT_NE(r.output.find("rank 0 on " + hosts_.host(1)), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rank 1 on " + hosts_.host(2)), std::string::npos) << r.output;
  cpuft_test::expect_same_training(two, one, 1e-5);

  // `cpuft cluster-check` as an operator runs it: the hostfile, the agent, and the bridge-only flags.
  std::string mca;
  for (const std::string& word : {std::string("--mca"), std::string("btl"), std::string("tcp,self"),
                                  std::string("--mca"), std::string("btl_tcp_if_include"), hosts_.subnet(),
                                  std::string("--mca"), std::string("oob_tcp_if_include"), hosts_.subnet()})
    mca += " --mpi-arg " + word;
  ASSERT_NE(hosts_.mpirun_flags().find("btl_tcp_if_include " + hosts_.subnet()), std::string::npos);
  cpuft_test::RunResult check = cpuft_test::run_command("timeout 120 " CPUFT_BINARY " cluster-check --hostfile " +
                                                        hosts_.hostfile() + " --rsh-agent " + hosts_.agent() + mca);
  EXPECT_EQ(check.status, 0) << check.output;
  EXPECT_NE(check.output.find("rank host"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("1    " + hosts_.host(2)), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("cluster-check: OK"), std::string::npos) << check.output;
  std::printf("[ cluster-check: %.1f s ]\n", check.seconds);
}

}  // namespace
