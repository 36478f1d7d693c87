// The multi-rank part of `cpuft bench` (under mpirun): the real data-parallel step (the trainer's
// gradient buckets, overlapped allreduce and wait before clipping) timed against the same step with
// the allreduce left out, which is what one rank alone with the same per-rank batch runs.
//
// Each timed round runs, after a barrier, one step without and one step with the allreduce, so that
// both see the same load on the machine. Figures are medians over the rounds; a step's time is the
// slowest rank's (the job waits for it), the one-rank time and the communication figures are means
// over the ranks (parallel/comm_stats.h for what allreduce, exposed and hidden mean). The steps start
// together (barrier), so a rank that ends backward before the slowest one waits for it in its
// exposed time: that part (straggler) is reported apart and left out of the share hidden, as it is
// not the network's.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "cpuft/parallel/communicator.h"
#include "cpuft/parallel/grad_buckets.h"

namespace cpuft {

struct DataParallelFigures {
  double step_s = 0;        // data-parallel step
  double local_step_s = 0;  // the same step without the allreduce
  double allreduce_s = 0;   // per step: some bucket in flight
  double exposed_s = 0;     // per step: the wait after backward
  double straggler_s = 0;   // per step: the part of that wait spent until the slowest rank ended backward
  double alone_s = 0;       // the same buckets summed with nothing else running
  double latency_s = 0;     // a blocking allreduce of 8 bytes (the per-message cost of the link and MPI)
  bool progress_thread = false;  // MPI progress: a thread on a spare CPU, or the marks of backward
  int buckets = 0;
  double megabytes = 0;     // per rank per step on the wire
  // Rank 0's last timed data-parallel step: when each gradient range was ready (seconds from the
  // step's start, floats), when backward ended and when the step did.
  std::vector<std::pair<double, size_t>> ready;
  double backward_end_s = 0, last_step_s = 0;

  double efficiency() const { return step_s > 0 ? local_step_s / step_s : 0; }
  // The share of the allreduce that backward covered: 1 - (exposed - straggler) / (allreduce -
  // straggler). The wait for the slowest rank is left out of both (buckets are in flight during it,
  // but it is a rank computing, not the network).
  double hidden() const {
    const double comm = allreduce_s - straggler_s;
    return comm > 0 ? 1.0 - (exposed_s - straggler_s) / comm : 1.0;
  }
};

// step(true) runs one training step whose backward marks gradients ready into `buckets` (after its
// begin_step) and waits for them before clipping, and returns the seconds from its start to that wait
// (the end of backward); step(false) the same step without the buckets;
// allreduce_only() the step's allreduce with every gradient ready at once. Runs `warmup` untimed
// rounds, then `rounds` timed ones. Collective: every rank calls it.
// The median of `v` (the upper one of an even count; 0 when empty): how bench reports repeated timings.
double median(std::vector<double> v);

DataParallelFigures time_data_parallel(Communicator& comm, const GradBuckets& buckets,
                                       const std::function<double(bool allreduce)>& step,
                                       const std::function<void()>& allreduce_only, int warmup, int rounds);

}  // namespace cpuft
