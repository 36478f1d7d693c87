// Collective watchdog: a thread that notices when MPI collectives have been outstanding without
// any of them completing for longer than a timeout (a rank died in a way the launcher did not see,
// or hangs) and then calls on_timeout, which aborts the job, so that no rank waits forever.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace cpuft {

class CollectiveWatchdog {
 public:
  // timeout_s <= 0 disables the watchdog (no thread). on_timeout gets a message such as
  // "MPI_Allreduce has not completed within 5 s"; it is called at most once.
  CollectiveWatchdog(double timeout_s, std::function<void(const std::string&)> on_timeout);
  ~CollectiveWatchdog();
  CollectiveWatchdog(const CollectiveWatchdog&) = delete;
  CollectiveWatchdog& operator=(const CollectiveWatchdog&) = delete;

  void begin(const char* what);  // a collective was started
  void end();                    // a collective completed

 private:
  void run();

  const double timeout_s_;
  std::function<void(const std::string&)> on_timeout_;
  std::mutex mu_;
  std::condition_variable cv_;
  int outstanding_ = 0;
  const char* what_ = "";
  double last_progress_s_;  // util/clock.h
  bool stop_ = false;
  bool fired_ = false;
  std::thread thread_;
};

// Marks one blocking collective for the watchdog (begin on construction, end on destruction).
class WatchedCollective {
 public:
  WatchedCollective(CollectiveWatchdog* dog, const char* what) : dog_(dog) {
    if (dog_) dog_->begin(what);
  }
  ~WatchedCollective() {
    if (dog_) dog_->end();
  }
  WatchedCollective(const WatchedCollective&) = delete;
  WatchedCollective& operator=(const WatchedCollective&) = delete;

 private:
  CollectiveWatchdog* dog_;
};

}  // namespace cpuft
