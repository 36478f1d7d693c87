#include "cpuft/parallel/grad_buckets.h"

#include <algorithm>

#include "cpuft/util/clock.h"
#include "cpuft/util/error.h"

namespace cpuft {

GradBuckets::GradBuckets(Communicator& comm, float* grads, size_t n, size_t bucket_bytes, WireType wire,
                         std::vector<int> progress_cpus, SparseRegion sparse)
    : comm_(comm),
      grads_(grads),
      n_(n),
      wire_(wire),
      bucket_elems_(std::max<size_t>(1, bucket_bytes / sizeof(float))),
      region_(sparse) {
  if (region_.rows > 0 && (region_.width == 0 || region_.end() > n))
    fail_internal("GradBuckets: sparse region [", region_.begin, ", ", region_.end(), ") is outside the gradient arena [0, ", n,
         ")");
  // Dense pieces, last first: [region end, n), then [0, region begin).
  const Range pieces[2] = {{region_.rows ? region_.end() : 0, n}, {0, region_.rows ? region_.begin : 0}};
  for (const Range& piece : pieces)
    for (size_t end = piece.end; end > piece.begin;) {
      size_t begin = end - piece.begin > bucket_elems_ ? end - bucket_elems_ : piece.begin;
      ranges_.push_back({begin, end});
      end = begin;
    }
  if (region_.rows > 0) rows_.emplace(region_.rows, region_.width);
  ready_.assign(ranges_.size(), 0);
  handles_.resize(ranges_.size() + 1);
  start_s_.assign(ranges_.size() + 1, 0);
  done_s_.assign(ranges_.size() + 1, 0);
  marks_.reserve(256);
  if (comm_.size() > 1 && !progress_cpus.empty())
    progress_ = std::make_unique<ProgressThread>([this] { return poll(); }, std::move(progress_cpus));
}

GradBuckets::~GradBuckets() { progress_.reset(); }

void GradBuckets::begin_step() {
  std::lock_guard<std::mutex> lock(mu_);
  for (AllreduceHandle& h : handles_)
    if (h.active()) fail_internal("GradBuckets::begin_step on ", comm_.where(), ": the previous step was not waited for");
  std::fill(ready_.begin(), ready_.end(), 0);
  std::fill(start_s_.begin(), start_s_.end(), 0.0);
  std::fill(done_s_.begin(), done_s_.end(), 0.0);
  region_ready_ = region_rows_ = 0;
  started_.clear();
  marks_.clear();
  in_step_ = true;
}

void GradBuckets::note_rows(const int32_t* ids, size_t count) {
  std::lock_guard<std::mutex> lock(mu_);
  if (flags_started_) fail_internal("GradBuckets::note_rows after backward began marking gradients ready");
  if (rows_) rows_->note(ids, count);
}

void GradBuckets::finished(int b) {
  done_s_[b] = now_s();
  --in_flight_;
}

bool GradBuckets::poll() {
  std::lock_guard<std::mutex> lock(mu_);
  test_outstanding();
  return in_flight_ > 0;
}

void GradBuckets::test_outstanding() {
  if (flags_.active() && flags_.test()) --in_flight_;
  for (int b : started_)
    if (handles_[b].active() && handles_[b].test()) finished(b);
}

void GradBuckets::start(int b) {
  const Range& r = ranges_[b];
  start_s_[b] = now_s();
  handles_[b] = comm_.iallreduce_sum(grads_ + r.begin, r.end - r.begin, wire_);
  started_.push_back(b);
  if (handles_[b].active()) {
    ++in_flight_;
    if (progress_) progress_->wake();
  } else {
    done_s_[b] = start_s_[b];  // a world of one: nothing to sum
  }
}

void GradBuckets::start_region() {
  const int b = region_index();
  start_s_[b] = now_s();
  if (flags_.active()) {
    flags_.wait();  // started at the first mark_ready: normally complete long ago
    --in_flight_;
  }
  float* table = grads_ + region_.begin;
  region_rows_ = rows_->pack(table);
  const size_t count = region_rows_ * region_.width;
  handles_[b] = comm_.iallreduce_sum(table, count, wire_);
  started_.push_back(b);
  if (handles_[b].active()) {
    ++in_flight_;
    if (progress_) progress_->wake();
  } else {
    done_s_[b] = now_s();
  }
}

void GradBuckets::mark_ready(size_t begin, size_t end) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!in_step_) fail_internal("GradBuckets::mark_ready before begin_step");
  if (begin > end || end > n_)
    fail_internal("GradBuckets::mark_ready: range [", begin, ", ", end, ") is outside the gradient arena [0, ", n_, ")");
  if (begin == end) return;
  if (marks_.size() < marks_.capacity()) marks_.push_back({now_s(), begin, end});
  if (rows_ && !flags_started_) {
    // Backward has begun: every batch of the step has noted its rows; agree on their union meanwhile.
    flags_started_ = true;
    flags_ = comm_.iallreduce_max(rows_->flags(), rows_->rows());
    if (flags_.active()) {
      ++in_flight_;
      if (progress_) progress_->wake();
    }
  }
  for (size_t b = 0; b < ranges_.size(); ++b) {
    const Range& r = ranges_[b];
    if (end <= r.begin || begin >= r.end) continue;
    ready_[b] += std::min(end, r.end) - std::max(begin, r.begin);
    if (ready_[b] > r.end - r.begin)
      fail_internal("GradBuckets::mark_ready: bucket [", r.begin, ", ", r.end, ") marked ready ", ready_[b],
           " elements, expected ", r.end - r.begin, " (a range was marked twice)");
    if (ready_[b] == r.end - r.begin) start(static_cast<int>(b));
  }
  if (rows_ && end > region_.begin && begin < region_.end()) {
    const size_t size = region_.end() - region_.begin;
    region_ready_ += std::min(end, region_.end()) - std::max(begin, region_.begin);
    if (region_ready_ > size)
      fail_internal("GradBuckets::mark_ready: sparse region [", region_.begin, ", ", region_.end(), ") marked ready ",
           region_ready_, " elements, expected ", size, " (a range was marked twice)");
    if (region_ready_ == size) start_region();
  }
  if (!progress_ && in_flight_ > 0) test_outstanding();  // no progress thread: move them along now
}

void GradBuckets::fail_incomplete(size_t begin, size_t end, size_t ready) const {
  fail_internal("GradBuckets::wait_all on ", comm_.where(), ": bucket [", begin, ", ", end, ") has ", ready, " of ", end - begin,
       " gradients marked ready, expected all");
}

void GradBuckets::wait_all() {
  const double t0 = now_s();
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t b = 0; b < ranges_.size(); ++b)
    if (ready_[b] != ranges_[b].end - ranges_[b].begin) fail_incomplete(ranges_[b].begin, ranges_[b].end, ready_[b]);
  if (rows_ && region_ready_ != region_.end() - region_.begin)
    fail_incomplete(region_.begin, region_.end(), region_ready_);
  for (int b : started_)
    if (handles_[b].active()) {
      handles_[b].wait();
      finished(b);
    }
  if (rows_) {
    rows_->unpack(grads_ + region_.begin);
    rows_->clear();
    flags_started_ = false;
  }
  in_step_ = false;
  StepCommStats s;
  s.exposed_s = comm_.size() > 1 ? now_s() - t0 : 0.0;
  std::vector<std::pair<double, double>> spans;
  for (int b : started_) spans.emplace_back(start_s_[b], done_s_[b]);
  s.allreduce_s = union_length(spans);
  s.buckets = static_cast<int>(started_.size());
  const size_t dense = n_ - (rows_ ? region_.end() - region_.begin : 0);
  s.bytes = comm_.size() > 1 ? (dense + region_rows_ * region_.width) * (wire_ == WireType::kBf16 ? 2 : 4) : 0;
  last_ = s;
}

}  // namespace cpuft
