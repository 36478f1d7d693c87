// Seconds on the monotonic clock, for the timings cpuft reports (bench, the allreduce statistics).
#pragma once

#include <chrono>

namespace cpuft {

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace cpuft
