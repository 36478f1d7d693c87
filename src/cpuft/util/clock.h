// cpuft's one clock: the monotonic clock, for every time cpuft measures or waits on (bench, the
// allreduce statistics, phase times, the progress line, the op profile, the collective watchdog).
#pragma once

#include <chrono>
#include <cstdint>

namespace cpuft {

// Seconds.
inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Nanoseconds, for sums of many short intervals (util/op_profile).
inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace cpuft
