// A rank dies (SIGKILL) in the middle of a 3-rank training run, after a checkpoint was written: mpirun
// and the other ranks must exit soon with a message naming the dead rank, the last complete checkpoint
// must load, and resuming from it on 2 ranks must finish the run.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>
#include <vector>

#include "parallel/train_e2e.h"

namespace {

using Clock = std::chrono::steady_clock;

bool file_exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Direct children of pid (mpirun forks its local ranks itself).
std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  std::istringstream in(read_text("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children"));
  for (pid_t c; in >> c;) out.push_back(c);
  return out;
}

// The MPI world rank of a process started by Open MPI, from its environment; -1 if unknown.
int world_rank_of(pid_t pid) {
  const std::string env = read_text("/proc/" + std::to_string(pid) + "/environ");
  const std::string key = "OMPI_COMM_WORLD_RANK=";
  for (size_t at = 0; at < env.size();) {
    const size_t end = env.find('\0', at);
    const std::string var = env.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (var.compare(0, key.size(), key) == 0) return std::atoi(var.c_str() + key.size());
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return -1;
}

// Starts argv with stdout and stderr going to log; returns its pid.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int null = ::open("/dev/null", O_RDONLY);
    if (fd < 0 || null < 0) _exit(127);
    dup2(null, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  return pid;
}

// Waits up to limit_s for pid; returns its wait status, or -1 on timeout.
int wait_for(pid_t pid, double limit_s) {
  const auto t0 = Clock::now();
  for (;;) {
    int st = 0;
    if (waitpid(pid, &st, WNOHANG) == pid) return st;
    if (std::chrono::duration<double>(Clock::now() - t0).count() > limit_s) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// The trainer's JSON log line of step 2 is in `log`.
bool step_two_logged(const std::string& log) { return read_text(log).find("\"step\":2}") != std::string::npos; }

class TrainFailure : public cpuft_test::TrainE2E {
 protected:
  void SetUp() override {
    TrainE2E::SetUp();
    if (!mpi_usable()) GTEST_SKIP() << "mpirun not found or cpuft built without MPI";
  }

  // Starts `mpirun -np N cpuft train FLAGS` with its output in `log`.
  static pid_t start_job(int np, const std::string& flags, const std::string& log) {
    std::vector<std::string> argv = {"mpirun", "--oversubscribe", "--bind-to", "none", "-np", std::to_string(np),
                                     CPUFT_BINARY, "train"};
    std::istringstream words(flags);
    for (std::string w; words >> w;) argv.push_back(w);
    return spawn(argv, log);
  }
  // Waits until `ready()` (at most 60 s), then returns mpirun's children; *rank1 is world rank 1's
  // process among them, or -1.
  static std::vector<pid_t> ranks_when(pid_t mpirun, const std::function<bool()>& ready, pid_t* rank1) {
    const auto t0 = Clock::now();
    while (!ready() && std::chrono::duration<double>(Clock::now() - t0).count() < 60)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::vector<pid_t> ranks = children_of(mpirun);
    *rank1 = -1;
    for (pid_t r : ranks)
      if (world_rank_of(r) == 1) *rank1 = r;
    return ranks;
  }
  // Ends what a test started (mpirun and its ranks) before it fails.
  static void kill_job(pid_t mpirun, const std::vector<pid_t>& ranks) {
    kill(mpirun, SIGKILL);
    for (pid_t r : ranks) kill(r, SIGKILL);
    wait_for(mpirun, 10);
  }
};

TEST_F(TrainFailure, KilledRankStopsTheJobAndTheLastCheckpointResumesOnFewerRanks) {
  // 3 ranks x 2 = global batch 6 over 30 features: 5 steps per epoch, 24 steps (a few seconds), a
  // checkpoint every 3 steps. The resumed run uses 2 ranks x 3, the same global batch.
  const std::string out = dir_ + "/run";
  const std::string args = cpuft_test::common_train_flags(model_) + " --output_dir " + out +
                           " --max_train_samples 30 --max_steps 24 --save_steps 3";
  const std::string log = dir_ + "/mpirun.log";
  const pid_t mpirun = start_job(3, args + " --per_device_train_batch_size 2", log);
  ASSERT_GT(mpirun, 0);

  // Wait for checkpoint-3 to be complete (its cpuft_state.json is written last), then kill rank 1.
  pid_t victim = -1;
  const std::vector<pid_t> ranks =
      ranks_when(mpirun, [&] { return file_exists(out + "/checkpoint-3/cpuft_state.json"); }, &victim);
  if (victim < 0) {
    kill_job(mpirun, ranks);
    FAIL() << "no rank 1 among mpirun's children (" << ranks.size() << " found); log:\n" << read_text(log);
  }
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  const auto killed_at = Clock::now();

  const int st = wait_for(mpirun, 30);
  const double took = std::chrono::duration<double>(Clock::now() - killed_at).count();
  if (st == -1) kill_job(mpirun, ranks);  // a hang: clean up what this test started before failing
  const std::string output = read_text(log);
  std::printf("[ mpirun exited %.1f s after rank 1 was killed ]\n", took);
  ASSERT_NE(st, -1) << "mpirun still running 30 s after rank 1 was killed:\n" << output;
  EXPECT_FALSE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << output;
  // Open MPI's launcher (mpirun or prterun) names the dead rank; "cpuft[rank 1/3]" lines do not count.
  EXPECT_NE(output.find("process rank 1 "), std::string::npos) << "no message names rank 1:\n" << output;
  EXPECT_EQ(output.find("step 24/24"), std::string::npos) << "the run finished before the kill:\n" << output;
  for (pid_t r : ranks)  // every other rank is gone too (no zombie waits on a dead peer)
    EXPECT_TRUE(kill(r, 0) != 0 || world_rank_of(r) < 0) << "rank process " << r << " still alive";

  // The last complete checkpoint loads, and 2 ranks finish the run from it.
  const std::string last = [&] {
    std::string best;
    for (int step = 3; step <= 24; step += 3)
      if (file_exists(out + "/checkpoint-" + std::to_string(step) + "/cpuft_state.json"))
        best = out + "/checkpoint-" + std::to_string(step);
    return best;
  }();
  ASSERT_FALSE(last.empty());
  EXPECT_NO_THROW(cpuft::SafetensorsReader(last + "/model.safetensors").read_f32("qa_outputs.weight")) << last;
  cpuft_test::RunResult resume = cpuft_test::run_command(cpuft_test::train_command(
      2, args + " --per_device_train_batch_size 3 --resume_from_checkpoint " + last));
  ASSERT_EQ(resume.status, 0) << resume.output;
  std::printf("[ resumed from %s on 2 ranks in %.1f s ]\n", last.substr(last.rfind('/') + 1).c_str(), resume.seconds);
  EXPECT_EQ(cpuft_test::read_json(out + "/trainer_state.json").value("global_step", 0), 24);
  EXPECT_NO_THROW(cpuft::SafetensorsReader(out + "/model.safetensors").read_f32("qa_outputs.weight"));
}

// SIGTERM to one rank (a spot instance reclaimed under one process) stops every rank after the same
// step; rank 0, which did not get the signal itself, printed "stopped by  after step N" (no name).
TEST_F(TrainFailure, SigtermToOneRankIsNamedByRankZero) {
  const std::string out = dir_ + "/stopped";
  const std::string log = dir_ + "/sigterm.log";
  const pid_t mpirun = start_job(2, cpuft_test::common_train_flags(model_) + " --output_dir " + out +
                                        " --max_train_samples 30 --max_steps 500 --per_device_train_batch_size 2",
                                 log);
  ASSERT_GT(mpirun, 0);
  // Step 2 logged: both ranks are in the step loop with their stop handlers installed.
  pid_t victim = -1;
  const std::vector<pid_t> ranks = ranks_when(mpirun, [&] { return step_two_logged(log); }, &victim);
  if (victim >= 0) kill(victim, SIGTERM);
  const int st = wait_for(mpirun, 60);
  if (st == -1 || victim < 0) kill_job(mpirun, ranks);
  const std::string output = read_text(log);
  ASSERT_GE(victim, 0) << "no rank 1 among mpirun's children; log:\n" << output;
  ASSERT_NE(st, -1) << "mpirun still running 60 s after SIGTERM to rank 1:\n" << output;
  EXPECT_NE(output.find("cpuft: warning: stopped by SIGTERM after step "), std::string::npos) << output;
  EXPECT_EQ(output.find("stopped by  after"), std::string::npos) << output;
  EXPECT_EQ(output.find("step 500/500"), std::string::npos) << "the run finished before the signal:\n" << output;
}

// The collective watchdog's timeout was fixed at 300 s; --collective_timeout sets it. A rank that stops
// (SIGSTOP: alive, silent) leaves the other waiting in a collective until the watchdog ends the job.
TEST_F(TrainFailure, CollectiveTimeoutFlagSetsTheWatchdog) {
  const std::string out = dir_ + "/watched";
  const std::string log = dir_ + "/watchdog.log";
  const pid_t mpirun = start_job(2, cpuft_test::common_train_flags(model_) + " --output_dir " + out +
                                        " --max_train_samples 30 --max_steps 500 --per_device_train_batch_size 2"
                                        " --collective_timeout 3",
                                 log);
  ASSERT_GT(mpirun, 0);
  pid_t victim = -1;
  const std::vector<pid_t> ranks = ranks_when(mpirun, [&] { return step_two_logged(log); }, &victim);
  if (victim >= 0) kill(victim, SIGSTOP);
  const int st = wait_for(mpirun, 60);  // the default timeout would keep it waiting 300 s
  if (victim >= 0) {
    kill(victim, SIGKILL);
    kill(victim, SIGCONT);
  }
  if (st == -1 || victim < 0) kill_job(mpirun, ranks);
  const std::string output = read_text(log);
  ASSERT_GE(victim, 0) << "no rank 1 among mpirun's children; log:\n" << output;
  ASSERT_NE(st, -1) << "mpirun still running 60 s after rank 1 stopped:\n" << output;
  EXPECT_NE(output.find("has not completed within 3 s"), std::string::npos) << output;
}

}  // namespace
