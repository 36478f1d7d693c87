// What the gradient allreduce of one optimizer step cost, as GradBuckets saw it (times on this rank):
//
//   allreduce_s  wall time during which at least one bucket's allreduce was in flight, from the
//                first bucket's start to the last one's completion, gaps with none in flight left out
//   exposed_s    the part the step waited for: the time wait_all (the wait before clipping) blocked
//
// 1 - exposed / allreduce is the share backward covered. A rank that ends backward before another
// also waits for that rank in exposed_s (and its buckets are in flight meanwhile): `cpuft bench`
// measures that wait and leaves it out (perf/data_parallel_timing.h); the trainer logs both times per
// logging step as they are.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace cpuft {

struct StepCommStats {
  double allreduce_s = 0;
  double exposed_s = 0;
  size_t bytes = 0;  // what this rank put on the wire for the step's sums (bucket elements x wire size)
  int buckets = 0;

  StepCommStats& operator+=(const StepCommStats& o);
};

// The total length of the union of [start, end) intervals (in any order; empty ones count nothing).
double union_length(std::vector<std::pair<double, double>> intervals);

}  // namespace cpuft
