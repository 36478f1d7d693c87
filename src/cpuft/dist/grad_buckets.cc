#include "cpuft/dist/grad_buckets.h"

#include <omp.h>

#include <algorithm>

#include "cpuft/util/error.h"

namespace cpuft {

float shard_weight(size_t local_count, size_t global_count) {
  if (global_count == 0) fail("gradient average: global example count is 0, expected at least 1");
  return static_cast<float>(static_cast<double>(local_count) / static_cast<double>(global_count));
}

GradBuckets::GradBuckets(Communicator& comm, float* grads, size_t n, size_t bucket_bytes, WireType wire)
    : comm_(comm), grads_(grads), n_(n), wire_(wire), bucket_elems_(std::max<size_t>(1, bucket_bytes / sizeof(float))) {
  for (size_t end = n; end > 0;) {
    size_t begin = end > bucket_elems_ ? end - bucket_elems_ : 0;
    ranges_.push_back({begin, end});
    end = begin;
  }
  ready_.assign(ranges_.size(), 0);
  handles_.resize(ranges_.size());
}

void GradBuckets::begin_step(float scale) {
  for (AllreduceHandle& h : handles_)
    if (h.active()) fail("GradBuckets::begin_step on ", comm_.where(), ": the previous step was not waited for");
  scale_ = scale;
  std::fill(ready_.begin(), ready_.end(), 0);
  started_.clear();
  in_step_ = true;
}

void GradBuckets::start(int b) {
  const Range& r = ranges_[b];
  if (scale_ != 1.0f) {
    const float scale = scale_;
    // Backward may call mark_ready from inside its own parallel region: no nested team then.
#pragma omp parallel for schedule(static) if (r.end - r.begin > (1u << 16) && !omp_in_parallel())
    for (size_t i = r.begin; i < r.end; ++i) grads_[i] *= scale;
  }
  handles_[b] = comm_.iallreduce_sum(grads_ + r.begin, r.end - r.begin, wire_);
  started_.push_back(b);
}

void GradBuckets::mark_ready(size_t begin, size_t end) {
  if (!in_step_) fail("GradBuckets::mark_ready before begin_step");
  if (begin > end || end > n_)
    fail("GradBuckets::mark_ready: range [", begin, ", ", end, ") is outside the gradient arena [0, ", n_, ")");
  // Bucket b covers [n - (b+1)*E, n - b*E) clipped at 0, so the range touches buckets first..last.
  if (begin == end) return;
  int first = static_cast<int>((n_ - end) / bucket_elems_);
  int last = static_cast<int>((n_ - 1 - begin) / bucket_elems_);
  for (int b = first; b <= last; ++b) {
    const Range& r = ranges_[b];
    size_t overlap = std::min(end, r.end) - std::max(begin, r.begin);
    ready_[b] += overlap;
    if (ready_[b] > r.end - r.begin)
      fail("GradBuckets::mark_ready: bucket [", r.begin, ", ", r.end, ") marked ready ", ready_[b],
           " elements, expected ", r.end - r.begin, " (a range was marked twice)");
    if (ready_[b] == r.end - r.begin) start(b);
  }
  for (AllreduceHandle& h : handles_)
    if (h.active()) h.test();
}

void GradBuckets::wait_all() {
  for (size_t b = 0; b < ranges_.size(); ++b) {
    const Range& r = ranges_[b];
    if (ready_[b] != r.end - r.begin)
      fail("GradBuckets::wait_all on ", comm_.where(), ": bucket [", r.begin, ", ", r.end, ") has ", ready_[b],
           " of ", r.end - r.begin, " gradients marked ready, expected all");
  }
  for (AllreduceHandle& h : handles_) h.wait();
  in_step_ = false;
}

}  // namespace cpuft
