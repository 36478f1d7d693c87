#include "cpuft/parallel/progress_thread.h"

#include <pthread.h>
#include <sched.h>

#include "cpuft/util/log.h"

namespace cpuft {

ProgressThread::ProgressThread(std::function<bool()> poll, std::vector<int> cpus, std::chrono::microseconds interval)
    : poll_(std::move(poll)), cpus_(std::move(cpus)), interval_(interval) {
  thread_ = std::thread([this] { run(); });
}

ProgressThread::~ProgressThread() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

void ProgressThread::wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    work_ = true;
  }
  cv_.notify_one();
}

void ProgressThread::run() {
  if (!cpus_.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus_) CPU_SET(c, &set);
    // Not fatal: the thread then runs where its creator may (only slower to progress).
    if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
      log_warn_all_ranks("MPI progress thread: cannot move to its CPUs; it shares the compute cores");
  }
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return work_ || stop_; });
    if (stop_) return;
    work_ = false;
    lock.unlock();
    while (poll_()) {
      std::this_thread::sleep_for(interval_);
      std::lock_guard<std::mutex> check(mu_);
      if (stop_) return;
    }
    lock.lock();
  }
}

}  // namespace cpuft
