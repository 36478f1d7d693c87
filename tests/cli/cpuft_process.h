// Runs the cpuft executable (CPUFT_BINARY) as a child process for the end-to-end tests: arguments
// as a vector (no shell quoting), stdout and stderr captured separately, optional stdin text, a
// wall-clock limit, and a start/signal/wait interface for the signal tests.
#pragma once

#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace cpuft_e2e {

struct ProcessResult {
  int status = -1;  // exit code, or 128 + signal when killed by a signal; -1 when the time limit hit
  std::string out, err;
  double seconds = 0;
  bool timed_out = false;
  int64_t peak_rss_kb = 0;  // the child's peak resident memory (its ru_maxrss)
};

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// How a child is started beyond its arguments.
struct RunOptions {
  std::string stdin_text;
  // Non-empty: the child's stdin is this path (e.g. a FIFO the test writes to) instead of stdin_text.
  std::string stdin_file;
  // > 0: the child runs under this RLIMIT_AS (bytes), so that a test can show a command does not
  // allocate what it must not.
  uint64_t address_space_limit = 0;
  // Non-empty: the child's stdout is this file (e.g. /dev/full) instead of a captured one.
  std::string stdout_file;
  bool close_stdout = false;  // the child starts with no stdout at all
  // The child cannot override file permissions even when run as root (CAP_DAC_OVERRIDE is dropped
  // from its bounding set), so that a read-only directory is read-only to it.
  bool obey_permissions = false;
};

// A started cpuft process whose stdin/stdout/stderr are files in `scratch` (numbered per process).
class CpuftProcess {
 public:
  CpuftProcess(const std::vector<std::string>& args, const std::string& scratch, const RunOptions& options = {})
      : t0_(std::chrono::steady_clock::now()) {
    const std::string& stdin_text = options.stdin_text;
    const uint64_t address_space_limit = options.address_space_limit;
    const bool close_stdout = options.close_stdout;
    static int counter = 0;
    const std::string base = scratch + "/proc" + std::to_string(++counter);
    out_path_ = options.stdout_file.empty() ? base + ".stdout" : options.stdout_file;
    capture_out_ = options.stdout_file.empty();
    err_path_ = base + ".stderr";
    const std::string in_path = options.stdin_file.empty() ? base + ".stdin" : options.stdin_file;
    if (options.stdin_file.empty()) std::ofstream(in_path, std::ios::binary) << stdin_text;
    std::vector<std::string> argv_s = {CPUFT_BINARY};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      // Child: only async-signal-safe calls until exec.
      int in = ::open(in_path.c_str(), O_RDONLY);
      int out = ::open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = ::open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (in < 0 || out < 0 || err < 0) ::_exit(120);
      if (options.obey_permissions && ::geteuid() == 0 && ::prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, 0, 0, 0) != 0)
        ::_exit(123);
      if (address_space_limit > 0) {
        const struct rlimit limit = {address_space_limit, address_space_limit};
        if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(122);
      }
      ::dup2(in, 0);
      ::dup2(out, 1);
      ::dup2(err, 2);
      if (close_stdout) ::close(1);
      std::vector<char*> argv;
      for (std::string& a : argv_s) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(121);
    }
  }
  CpuftProcess(const CpuftProcess&) = delete;
  CpuftProcess& operator=(const CpuftProcess&) = delete;
  ~CpuftProcess() {
    if (pid_ > 0 && !done_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  std::string stderr_so_far() const { return slurp(err_path_); }
  const std::string& stdout_path() const { return out_path_; }
  void signal(int sig) { ::kill(pid_, sig); }

  // Waits up to `limit_s` seconds; on timeout kills the child and marks the result timed_out.
  ProcessResult wait(double limit_s) {
    ProcessResult r;
    int st = 0;
    struct rusage usage {};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
    while (true) {
      pid_t got = ::wait4(pid_, &st, WNOHANG, &usage);
      if (got == pid_) break;
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::wait4(pid_, &st, 0, &usage);
        r.timed_out = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    done_ = true;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    r.status = r.timed_out ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.peak_rss_kb = usage.ru_maxrss;
    if (capture_out_) r.out = slurp(out_path_);  // never read back a device such as /dev/full
    r.err = slurp(err_path_);
    return r;
  }

  // Polls stderr until it contains `needle` (true) or `limit_s` passes or the process ends (false).
  bool wait_for_stderr(const std::string& needle, double limit_s) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
    while (std::chrono::steady_clock::now() < deadline) {
      if (stderr_so_far().find(needle) != std::string::npos) return true;
      siginfo_t info{};
      if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_)
        return stderr_so_far().find(needle) != std::string::npos;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

 private:
  std::string out_path_, err_path_;
  bool capture_out_ = true;
  std::chrono::steady_clock::time_point t0_;
  pid_t pid_ = -1;
  bool done_ = false;
};

// Runs cpuft to completion (killed after `limit_s` seconds).
inline ProcessResult run_cpuft(const std::vector<std::string>& args, const std::string& scratch,
                               double limit_s = 120, const RunOptions& options = {}) {
  CpuftProcess p(args, scratch, options);
  return p.wait(limit_s);
}

}  // namespace cpuft_e2e
