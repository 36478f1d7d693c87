// Overlapped gradient allreduce in buckets (as torch DDP does). The gradient arena is one flat f32
// array with the parameters in forward order, so backward finishes it from the end: buckets are cut
// from the END backward (bucket 0 is the last bucket_bytes of the arena). The model calls
// mark_ready(begin, end) whenever a range of gradients is final; a bucket whose every element has been
// marked starts its non-blocking allreduce at once, and each mark_ready also tests the outstanding
// requests so MPI makes progress while backward goes on. wait_all() (before clipping) completes them.
//
// Averaging. HF/DDP gives every rank a batch of the same size; each rank's loss is the mean over its
// own batch, so the mean over the global batch is (sum over ranks of local gradients) / world size:
// begin_step(1.0f / size). When the local batches differ in size (n_r examples on rank r, N in all),
// the global mean is sum_r (n_r / N) * g_r: begin_step(shard_weight(n_r, N)). The weight is applied to
// each bucket just before its allreduce starts, so the sum itself is the average.
#pragma once

#include <cstddef>
#include <vector>

#include "cpuft/dist/communicator.h"

namespace cpuft {

// The weight of a rank holding local_count of global_count examples in a gradient average.
float shard_weight(size_t local_count, size_t global_count);

class GradBuckets {
 public:
  struct Range {
    size_t begin, end;  // element offsets in the arena
  };

  // Plans buckets of bucket_bytes (rounded down to whole floats, at least one) over grads[0, n).
  GradBuckets(Communicator& comm, float* grads, size_t n, size_t bucket_bytes, WireType wire = WireType::f32);

  // Starts a step: nothing is ready, and every bucket will be multiplied by `scale` before its sum.
  // Throws if the previous step still has requests outstanding (wait_all was not called).
  void begin_step(float scale);

  // grads[begin, end) are final for this step. Called by one thread at a time (e.g. the master thread
  // between layers). Ranges of one step must not overlap; a range marked twice (more elements ready
  // than a bucket holds) throws.
  void mark_ready(size_t begin, size_t end);

  // Waits for every bucket; throws (naming the bucket and how much of it was ready) when a bucket was
  // never fully marked, since its gradients would then be missing from the sum.
  void wait_all();

  const std::vector<Range>& buckets() const { return ranges_; }
  // Buckets whose allreduce has started in this step, in start order (for tests and logging).
  const std::vector<int>& started() const { return started_; }

 private:
  void start(int b);

  Communicator& comm_;
  float* grads_;
  size_t n_;
  WireType wire_;
  float scale_ = 1.0f;
  size_t bucket_elems_;
  std::vector<Range> ranges_;
  std::vector<size_t> ready_;  // elements marked per bucket
  std::vector<AllreduceHandle> handles_;
  std::vector<int> started_;
  bool in_step_ = false;
};

}  // namespace cpuft
