// A thread that keeps non-blocking collectives moving while the caller computes. Open MPI (and MPICH
// without its asynchronous-progress option) advances an MPI_Iallreduce only inside MPI calls made by
// the application: a gradient bucket started early in backward would otherwise move only when
// backward next calls into MPI, and most of its transfer would wait for the end of backward.
//
// While work is outstanding the thread calls poll() every `interval`; poll returns false once nothing
// is left, and the thread then sleeps until wake(). poll must be safe to call from this thread (it
// takes its owner's lock; MPI calls go through the Communicator, which serialises them).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cpuft {

class ProgressThread {
 public:
  // cpus: where the thread may run (e.g. the spare cores of this rank's share, cpu/placement.h);
  // empty: wherever the creating thread may.
  ProgressThread(std::function<bool()> poll, std::vector<int> cpus,
                 std::chrono::microseconds interval = std::chrono::microseconds(200));
  ~ProgressThread();  // stops and joins
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;

  void wake();  // work was added: poll until poll() returns false

 private:
  void run();

  std::function<bool()> poll_;
  std::vector<int> cpus_;
  std::chrono::microseconds interval_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool work_ = false, stop_ = false;
  std::thread thread_;
};

}  // namespace cpuft
