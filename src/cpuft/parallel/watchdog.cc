#include "cpuft/parallel/watchdog.h"

#include <algorithm>
#include <chrono>

#include "cpuft/util/clock.h"
#include "cpuft/util/error.h"

namespace cpuft {

CollectiveWatchdog::CollectiveWatchdog(double timeout_s, std::function<void(const std::string&)> on_timeout)
    : timeout_s_(timeout_s), on_timeout_(std::move(on_timeout)), last_progress_s_(now_s()) {
  if (timeout_s_ > 0) thread_ = std::thread([this] { run(); });
}

CollectiveWatchdog::~CollectiveWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CollectiveWatchdog::begin(const char* what) {
  std::lock_guard<std::mutex> lock(mu_);
  if (outstanding_++ == 0) last_progress_s_ = now_s();
  what_ = what;
}

void CollectiveWatchdog::end() {
  std::lock_guard<std::mutex> lock(mu_);
  if (outstanding_ > 0) --outstanding_;
  last_progress_s_ = now_s();
}

void CollectiveWatchdog::run() {
  // Checks a few times per timeout period, at least once a second.
  const auto period = std::chrono::duration<double>(std::min(1.0, timeout_s_ / 4));
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, period);
    if (stop_ || fired_ || outstanding_ == 0) continue;
    const double idle = now_s() - last_progress_s_;
    if (idle < timeout_s_) continue;
    fired_ = true;
    std::string message = str_cat(what_, " has not completed within ", timeout_s_, " s");
    lock.unlock();
    on_timeout_(message);
    lock.lock();
  }
}

}  // namespace cpuft
