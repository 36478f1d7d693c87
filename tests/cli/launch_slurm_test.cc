// `cpuft launch --slurm --dry-run`: the batch script for N nodes x K ranks with this machine's plan,
// printed without submitting, and the one-line errors of flags that do not go with --slurm. (The
// script submitted to a real Slurm is tests/dist/slurm_test.cc.)
#include "cli/e2e_fixture.h"

namespace cpuft_e2e {
namespace {

class LaunchSlurm : public E2eTest {};

TEST_F(LaunchSlurm, DryRunPrintsTheScriptWithThePlan) {
  ProcessResult r = cpuft({"launch", "--slurm", "--nodes", "4", "--nproc_per_node", "2", "--dry-run", "--", "train",
                           "--output_dir", "out"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=2\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#   placement: 2 rank(s) per node"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#     local rank 1: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("srun --mpi=pmix --cpu-bind=none "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" train --output_dir out\n"), std::string::npos) << r.out;
}

TEST_F(LaunchSlurm, HostfileDoesNotGoWithSlurm) {
  ProcessResult r = cpuft({"launch", "--slurm", "--hostfile", "hosts", "--", "train"});
  EXPECT_ONE_LINE_ERROR(r, "--hostfile: not used with --slurm", "--nodes N");
}

TEST_F(LaunchSlurm, NodesNeedSlurm) {
  ProcessResult r = cpuft({"launch", "--nodes", "2", "--", "train"});
  EXPECT_ONE_LINE_ERROR(r, "--nodes: only with --slurm");
}

TEST_F(LaunchSlurm, ZeroNodes) {
  ProcessResult r = cpuft({"launch", "--slurm", "--nodes", "0", "--", "train"});
  EXPECT_ONE_LINE_ERROR(r, "--nodes: found '0', expected an integer in [1, 1000000]");
}

}  // namespace
}  // namespace cpuft_e2e
