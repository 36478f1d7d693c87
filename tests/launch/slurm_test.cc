// cpuft under Slurm, for real: scripts/slurm-local.sh starts a one-machine Slurm (a private munged,
// slurmctld and slurmd); `cpuft launch --slurm` writes and submits the batch script of a 2-rank job
// (srun --mpi=pmix), and mpirun runs inside an allocation; both must train like one process with the
// same global batch. srun without MPI wire-up must be refused. Skipped, saying why, only where the
// daemons cannot start (not root, Slurm or munge not installed, or the daemons fail: their logs are
// printed).
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "parallel/train_e2e.h"

namespace {

const std::string kScript = CPUFT_SOURCE_DIR "/scripts/slurm-local.sh";

class Slurm : public cpuft_test::TrainE2E {
 protected:
  void SetUp() override {
    TrainE2E::SetUp();
    if (HasFatalFailure()) return;
    if (!mpi_usable()) GTEST_SKIP() << "mpirun not found or cpuft built without MPI";
    if (geteuid() != 0) GTEST_SKIP() << "a one-machine Slurm needs root (slurmd)";
    state_ = "/tmp/cpuft-slurm-" + std::to_string(getpid());  // not under dir_: munged must reach it
    // A port of its own, so that a second run elsewhere on the machine does not meet this cluster.
    env_ = "CPUFT_SLURM_STATE=" + state_ + " CPUFT_SLURM_PORT=" + std::to_string(20000 + getpid() % 20000 * 2) + " ";
    cpuft_test::RunResult up = cpuft_test::run_command(env_ + kScript + " up");
    up_ = true;  // stop whatever started
    if (up.status != 0) GTEST_SKIP() << "the Slurm daemons cannot start here:\n" << up.output;
    std::printf("%s", up.output.c_str());
    env_ += "SLURM_CONF=" + state_ + "/slurm.conf ";
  }
  void TearDown() override {
    if (up_) {
      cpuft_test::RunResult down = cpuft_test::run_command(env_ + kScript + " down");
      EXPECT_EQ(down.status, 0) << down.output;
    }
    TrainE2E::TearDown();
  }
  static std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  const std::string args_ = "--max_train_samples 32 --num_train_epochs 2";
  std::string state_, env_;
  bool up_ = false;
};

TEST_F(Slurm, LaunchSubmitsABatchJobThatTrainsLikeOneProcess) {
  const std::string one = train(1, "single", args_ + " --per_device_train_batch_size 8");
  const std::string two = dir_ + "/sbatch";
  // SBATCH_WAIT makes sbatch return when the job has ended, with its exit status.
  cpuft_test::RunResult r = cpuft_test::run_command(
      "cd " + dir_ + " && " + env_ + "SBATCH_WAIT=1 SBATCH_OUTPUT=" + dir_ + "/job.out timeout 300 " CPUFT_BINARY
      " launch --slurm --nodes 1 --nproc_per_node 2 -- train " + cpuft_test::common_train_flags(model_) +
      " --output_dir " + two + " " + args_ + " --per_device_train_batch_size 4");
  const std::string job = read_file(dir_ + "/job.out");
  ASSERT_EQ(r.status, 0) << r.output << "\njob output:\n" << job;
  EXPECT_NE(r.output.find("#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=2\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("srun --mpi=pmix --cpu-bind=none " CPUFT_BINARY " train"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Submitted batch job"), std::string::npos) << r.output;
  EXPECT_NE(job.find("cpuft[rank 1/2]: rank 1 on "), std::string::npos) << job;
  cpuft_test::expect_same_training(two, one, 1e-5);
}

TEST_F(Slurm, MpirunInsideAnAllocationTrainsLikeOneProcess) {
  const std::string one = train(1, "single", args_ + " --per_device_train_batch_size 8");
  const std::string two = dir_ + "/salloc";
  // Open MPI takes the nodes from the allocation and starts its daemons with srun.
  cpuft_test::RunResult r = cpuft_test::run_command(
      env_ + "timeout 300 salloc -N 1 -n 2 mpirun --bind-to none -np 2 " CPUFT_BINARY " train " +
      cpuft_test::common_train_flags(model_) + " --output_dir " + two + " " + args_ + " --per_device_train_batch_size 4");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("cpuft[rank 1/2]: rank 1 on "), std::string::npos) << r.output;
  cpuft_test::expect_same_training(two, one, 1e-5);
}

TEST_F(Slurm, SrunWithoutMpiIsRefused) {
  cpuft_test::RunResult r = cpuft_test::run_command(
      env_ + "timeout 120 srun -N 1 -n 2 " CPUFT_BINARY " train " + cpuft_test::common_train_flags(model_) +
      " --output_dir " + dir_ + "/nompi " + args_);
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("started by srun as one of 2 tasks without MPI"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("srun --mpi=pmix"), std::string::npos) << r.output;
}

}  // namespace
