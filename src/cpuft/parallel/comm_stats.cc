#include "cpuft/parallel/comm_stats.h"

#include <algorithm>

namespace cpuft {

StepCommStats& StepCommStats::operator+=(const StepCommStats& o) {
  allreduce_s += o.allreduce_s;
  exposed_s += o.exposed_s;
  bytes += o.bytes;
  buckets += o.buckets;
  return *this;
}

double union_length(std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0, cur_start = 0, cur_end = 0;
  bool open = false;
  for (const auto& [start, end] : intervals) {
    if (end <= start) continue;
    if (open && start <= cur_end) {
      cur_end = std::max(cur_end, end);
      continue;
    }
    if (open) total += cur_end - cur_start;
    cur_start = start, cur_end = end, open = true;
  }
  if (open) total += cur_end - cur_start;
  return total;
}

}  // namespace cpuft
