// `cpuft launch --slurm --dry-run`: the batch script for N nodes x K ranks with this machine's plan,
// printed without submitting, and the one-line errors of flags that do not go with --slurm. (The
// script submitted to a real Slurm is tests/launch/slurm_test.cc.)
#include <stdlib.h>
#include <sys/stat.h>

#include "cli/e2e_fixture.h"

namespace cpuft_e2e {
namespace {

class LaunchSlurm : public E2eTest {
 protected:
  // Runs with PATH holding only `bin` (restored afterwards): the child finds its sbatch, or none, there.
  ProcessResult with_path(const std::string& bin, const Args& args) {
    const char* old = ::getenv("PATH");
    const std::string saved = old ? old : "";
    ::setenv("PATH", bin.c_str(), 1);
    ProcessResult r = cpuft(args);
    ::setenv("PATH", saved.c_str(), 1);
    return r;
  }
};

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

// Without sbatch on PATH, 3 runs in 30 ended with SIGPIPE (status 141): the script was written into
// the pipe of a shell that had already exited. sbatch is now started directly, so that it is missing
// is known before anything is written: the same one-line error every time.
TEST_F(LaunchSlurm, WithoutSbatchOnPathIsOneLineEveryTime) {
  fs::create_directories(path("empty-bin"));
  for (int i = 0; i < 50; ++i) {
    SCOPED_TRACE(i);
    ProcessResult r = with_path(path("empty-bin"), {"launch", "--slurm", "--", "train", "--output_dir", "out"});
    EXPECT_ONE_LINE_ERROR(r, "cannot run sbatch (not found), expected Slurm's sbatch on PATH");
    if (r.status != 1) break;
  }
}

// An sbatch that exits without reading its input (here before a script larger than a pipe holds):
// the write fails, and cpuft says so instead of dying of SIGPIPE.
TEST_F(LaunchSlurm, AnSbatchThatExitsWithoutReadingIsAnError) {
  fs::create_directories(path("bin"));
  write_text(path("bin/sbatch"), "#!/bin/sh\nexit 0\n");
  ::chmod(path("bin/sbatch").c_str(), 0755);
  Args args = {"launch", "--slurm", "--", "train"};
  for (int i = 0; i < 20; ++i) args.push_back("--note=" + std::string(10000, 'x'));  // a 200 KB script
  ProcessResult r = with_path(path("bin"), args);
  EXPECT_ONE_LINE_ERROR(r, "sbatch: could not pass it the script (it exited early, status 0)");
}

}  // namespace
}  // namespace cpuft_e2e
