#include "cpuft/perf/data_parallel_timing.h"

#include <algorithm>
#include <vector>

#include "cpuft/util/clock.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

DataParallelFigures time_data_parallel(Communicator& comm, const GradBuckets& buckets,
                                       const std::function<double(bool)>& step, const std::function<void()>& allreduce_only,
                                       int warmup, int rounds) {
  const bool profiling = op_profile_enabled();
  std::vector<double> local, dp, allreduce, exposed, straggler;
  DataParallelFigures f;
  for (int r = 0; r < warmup + rounds; ++r) {
    if (r == warmup) op_profile_reset();
    double t[2], backward_end = 0, t0 = 0;
    for (int with : {0, 1}) {
      comm.barrier();
      op_profile_enable(profiling && with == 1);  // the profile is the data-parallel step's
      t0 = now_s();
      backward_end = step(with == 1);
      t[with] = now_s() - t0;
    }
    f.ready.clear();
    for (const GradBuckets::ReadyMark& m : buckets.ready_marks()) f.ready.emplace_back(m.t - t0, m.end - m.begin);
    f.backward_end_s = backward_end;
    f.last_step_s = t[1];
    op_profile_enable(false);
    if (r < warmup) continue;
    // The slowest data-parallel step and end of backward; sums over ranks of the rest.
    double slowest[2] = {t[1], backward_end};
    comm.allreduce_max(slowest, 2);
    const StepCommStats& c = buckets.last_step();
    double sums[4] = {t[0], c.allreduce_s, c.exposed_s, std::min(c.exposed_s, slowest[1] - backward_end)};
    comm.allreduce_sum(sums, 4);
    const double n = comm.size();
    local.push_back(sums[0] / n);
    allreduce.push_back(sums[1] / n);
    exposed.push_back(sums[2] / n);
    straggler.push_back(sums[3] / n);
    dp.push_back(slowest[0]);
  }
  op_profile_enable(profiling);

  // The same buckets with nothing to hide behind: every gradient ready at once.
  std::vector<double> alone;
  for (int r = 0; r < 3; ++r) {
    comm.barrier();
    const double t0 = now_s();
    allreduce_only();
    double t = now_s() - t0;
    comm.allreduce_max(&t, 1);
    alone.push_back(t);
  }

  // The cost of a message that carries almost nothing.
  std::vector<double> small;
  for (int r = 0; r < 21; ++r) {
    double x = 1.0;
    comm.barrier();
    const double t0 = now_s();
    comm.allreduce_sum(&x, 1);
    double t = now_s() - t0;
    comm.allreduce_max(&t, 1);
    small.push_back(t);
  }

  f.latency_s = median(small);
  f.progress_thread = buckets.has_progress_thread();
  f.step_s = median(dp);
  f.local_step_s = median(local);
  f.allreduce_s = median(allreduce);
  f.exposed_s = median(exposed);
  f.straggler_s = median(straggler);
  f.alone_s = median(alone);
  f.buckets = buckets.last_step().buckets;  // the buckets, and the word-embedding rows as one more
  f.megabytes = static_cast<double>(buckets.last_step().bytes) / 1e6;
  return f;
}

}  // namespace cpuft
