// Overlapped gradient allreduce in buckets (as torch DDP does). The gradient arena is one flat f32
// array with the parameters in forward order, so backward finishes it from the end: buckets are cut
// from the END backward (bucket 0 is the last bucket_bytes of the arena). The model calls
// mark_ready(begin, end) whenever a range of gradients is final; a bucket whose every element has been
// marked starts its non-blocking allreduce at once. MPI moves outstanding requests only inside MPI
// calls: when the rank has a spare CPU (cpu/placement.h), a progress thread there (parallel/progress_thread.h)
// tests them every 200 us while backward computes; without one, each mark_ready tests them (a thread
// sharing the compute cores slowed backward down more than it helped: measured in docs/scaling.md).
// wait_all() (before clipping) completes them; last_step() then says what the allreduce cost and how
// much of it backward hid (parallel/comm_stats.h).
//
// An embedding table may be declared row-sparse (SparseRegion, parallel/sparse_rows.h): it is left out
// of the buckets, and once all of it is marked ready only the rows some rank noted (note_rows) are
// summed, packed into one allreduce. The result is the same as summing the whole table.
//
// Averaging. The trainer scales each rank's loss by that rank's share of the global batch (its rows
// over all ranks' rows, and over the accumulation steps), so the plain sum over ranks that the buckets
// compute is the mean over the global batch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "cpuft/parallel/comm_stats.h"
#include "cpuft/parallel/communicator.h"
#include "cpuft/parallel/progress_thread.h"
#include "cpuft/parallel/sparse_rows.h"

namespace cpuft {

// A [rows, width] table at `begin` in the arena whose gradient is summed by rows (rows 0: none).
struct SparseRegion {
  size_t begin = 0, rows = 0, width = 0;
  size_t end() const { return begin + rows * width; }
};

class GradBuckets {
 public:
  struct Range {
    size_t begin, end;  // element offsets in the arena
  };

  // Plans buckets of bucket_bytes (rounded down to whole floats, at least one) over grads[0, n),
  // without the sparse region. progress_cpus: the CPUs of a progress thread (the rank's spare CPUs);
  // empty, or a world of one: no thread.
  GradBuckets(Communicator& comm, float* grads, size_t n, size_t bucket_bytes, WireType wire = WireType::kF32,
              std::vector<int> progress_cpus = {}, SparseRegion sparse = {});
  ~GradBuckets();

  // Starts a step: nothing is ready. Throws if the previous step still has requests outstanding
  // (wait_all was not called).
  void begin_step();

  // The rows of the sparse region that this rank's batch uses (its token ids); call for every batch of
  // the step before its backward. Kept until wait_all.
  void note_rows(const int32_t* ids, size_t count);

  // grads[begin, end) are final for this step. Called by one thread at a time (e.g. the master thread
  // between layers). Ranges of one step must not overlap; a range marked twice (more elements ready
  // than a bucket holds) throws.
  void mark_ready(size_t begin, size_t end);

  // Waits for every bucket; throws (naming the bucket and how much of it was ready) when a bucket was
  // never fully marked, since its gradients would then be missing from the sum.
  void wait_all();

  const std::vector<Range>& buckets() const { return ranges_; }
  // Buckets whose allreduce has started in this step, in start order (for tests and logging); the
  // sparse region, when it has started, is listed as buckets().size().
  const std::vector<int>& started() const { return started_; }
  bool has_progress_thread() const { return progress_ != nullptr; }
  // The allreduce of the step finished by the last wait_all (all zero in a world of one).
  const StepCommStats& last_step() const { return last_; }

  // When each range of the current (or last) step was marked ready: steady-clock seconds and the
  // range, in call order (at most 256 per step are kept). What `cpuft bench` reports as the profile
  // of backward that the scaling model of docs/scaling.md replays.
  struct ReadyMark {
    double t;
    size_t begin, end;
  };
  const std::vector<ReadyMark>& ready_marks() const { return marks_; }

 private:
  int region_index() const { return static_cast<int>(ranges_.size()); }
  void start(int b);          // with mu_ held
  void start_region();        // with mu_ held: the sparse region is fully marked
  bool poll();                // the progress thread's work: tests outstanding requests; false when none
  void test_outstanding();    // with mu_ held
  void finished(int b);       // with mu_ held: bucket b's sum is complete
  void fail_incomplete(size_t begin, size_t end, size_t ready) const;

  Communicator& comm_;
  float* grads_;
  size_t n_;
  WireType wire_;
  size_t bucket_elems_;
  std::vector<Range> ranges_;
  std::vector<size_t> ready_;  // elements marked per bucket
  std::vector<AllreduceHandle> handles_;  // per bucket, then the sparse region
  std::vector<int> started_;
  bool in_step_ = false;

  SparseRegion region_;
  std::optional<SparseRows> rows_;
  size_t region_ready_ = 0, region_rows_ = 0;
  AllreduceHandle flags_;  // the union of the rows, started by the step's first mark_ready
  bool flags_started_ = false;

  // Guards handles_, flags_ and the times below against the progress thread.
  std::mutex mu_;
  int in_flight_ = 0;
  std::vector<double> start_s_, done_s_;  // per bucket (and the region), this step
  std::vector<ReadyMark> marks_;          // capacity fixed at construction
  StepCommStats last_;
  std::unique_ptr<ProgressThread> progress_;  // last: stopped before the members it polls go
};

}  // namespace cpuft
