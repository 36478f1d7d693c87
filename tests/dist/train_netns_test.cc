// Real multi-host training on one machine: two network-namespace hosts from scripts/netns-cluster.sh,
// one rank each, talking over TCP on the private bridge only (btl tcp,self: no shared memory between
// the hosts). The job must train like a single process with the same global batch, and
// `cpuft cluster-check --hostfile` must pass on the same hosts. Skipped where namespaces cannot be
// made (not root, no ip netns). Do not run at the same time as NetnsCluster.* (the same bridge).
#include <unistd.h>

#include <gtest/gtest.h>

#include "dist/train_e2e.h"

namespace {

const std::string kScript = CPUFT_SOURCE_DIR "/scripts/netns-cluster.sh";

class TrainNetns : public cpuft_test::TrainE2E {
 protected:
  void SetUp() override {
    TrainE2E::SetUp();
    if (HasFatalFailure()) return;
    if (geteuid() != 0) GTEST_SKIP() << "needs root for ip netns";
    if (!mpi_usable()) GTEST_SKIP() << "mpirun not found or cpuft built without MPI";
    if (cpuft_test::run_command("ip netns list").status != 0) GTEST_SKIP() << "ip netns not available";
    state_ = dir_ + "/netns";
    cpuft_test::RunResult up = script("up 2");
    up_ = true;  // tear down even a partial cluster
    if (up.status != 0) GTEST_SKIP() << "cannot create namespaces here: " << up.output;
    // The script prints the mpirun flags that keep the job on the bridge; use exactly those.
    const std::string marker = "mpirun flags: ";
    const size_t at = up.output.find(marker);
    ASSERT_NE(at, std::string::npos) << up.output;
    flags_ = up.output.substr(at + marker.size(), up.output.find('\n', at) - at - marker.size());
    ASSERT_NE(flags_.find("--mca btl tcp,self"), std::string::npos) << flags_;
  }
  void TearDown() override {
    if (up_) {
      cpuft_test::RunResult down = script("down");
      EXPECT_EQ(down.status, 0) << down.output;
      EXPECT_EQ(cpuft_test::run_command("ip netns list | grep cpuft-h").output, "");
    }
    TrainE2E::TearDown();
  }
  cpuft_test::RunResult script(const std::string& args) {
    return cpuft_test::run_command("CPUFT_NETNS_STATE=" + state_ + " CPUFT_NETNS_SLOTS=2 " + kScript + " " + args);
  }

  std::string state_, flags_;
  bool up_ = false;
};

TEST_F(TrainNetns, TwoHostsOverTcpTrainLikeOneProcess) {
  const std::string args = "--max_train_samples 32 --num_train_epochs 2";
  const std::string one = train(1, "single", args + " --per_device_train_batch_size 8");

  const std::string two = dir_ + "/hosts";
  cpuft_test::RunResult r = cpuft_test::run_command(
      "timeout 120 mpirun --oversubscribe --bind-to none -np 2 --map-by ppr:1:node " + flags_ + " " CPUFT_BINARY
      " train " + cpuft_test::common_train_flags(model_) + " --output_dir " + two + " " + args +
      " --per_device_train_batch_size 4");
  ASSERT_EQ(r.status, 0) << r.output;
  std::printf("[ 2 namespace hosts x 1 rank: %.1f s ]\n", r.seconds);
  EXPECT_NE(r.output.find("rank 0 on cpuft-h1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rank 1 on cpuft-h2"), std::string::npos) << r.output;
  cpuft_test::expect_same_training(two, one, 1e-5);

  // `cpuft cluster-check` as an operator runs it: the hostfile, the agent, and the bridge-only flags.
  const std::string mca = " --mpi-arg --mca --mpi-arg btl --mpi-arg tcp,self --mpi-arg --mca --mpi-arg "
                          "btl_tcp_if_include --mpi-arg 10.77.0.0/24 --mpi-arg --mca --mpi-arg oob_tcp_if_include "
                          "--mpi-arg 10.77.0.0/24";
  ASSERT_NE(flags_.find("btl_tcp_if_include 10.77.0.0/24"), std::string::npos) << flags_;
  cpuft_test::RunResult check = cpuft_test::run_command("timeout 120 " CPUFT_BINARY " cluster-check --hostfile " +
                                                        state_ + "/hostfile --rsh-agent " + state_ + "/rsh-agent" + mca);
  EXPECT_EQ(check.status, 0) << check.output;
  EXPECT_NE(check.output.find("rank host"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("1    cpuft-h2"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("cluster-check: OK"), std::string::npos) << check.output;
  std::printf("[ cluster-check: %.1f s ]\n", check.seconds);
}

}  // namespace
