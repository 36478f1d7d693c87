// The data-parallel training step both `cpuft train` and `cpuft bench` run: gradients of each
// micro-batch added into the model, the last one's handed to the gradient buckets while backward
// produces them (summed over ranks behind the rest of backward). The optimizer step
// follows (model/optimizer.h: optimizer_step) once buckets->wait_all() returns.
#pragma once

#include <cstdint>
#include <memory>

#include "cpuft/cpu/placement.h"
#include "cpuft/data/batch.h"
#include "cpuft/model/qa_model.h"
#include "cpuft/parallel/grad_buckets.h"

namespace cpuft {

// The buckets that sum the model's gradients over the ranks of `comm` (parallel/grad_buckets.h): buckets of
// `bucket_mb` MiB, `wire` on the wire, MPI progress on `spare_cpus`, the word-embedding table summed as
// the rows the step's tokens touch.
std::unique_ptr<GradBuckets> make_grad_buckets(Communicator& comm, QaModel& model, double bucket_mb, WireType wire,
                                               const std::vector<int>& spare_cpus);

// Forward and backward of one micro-batch, its gradients ADDED to the model's, each loss weighed by
// `loss_scale`; `row_offset` is the index of the batch's row 0 in the global batch (dropout masks).
// With `buckets`, the batch's tokens are noted (the embedding rows to sum), and on the step's `last`
// micro-batch the buckets' step begins and gradients are marked ready as backward produces them; the
// caller then waits with buckets->wait_all(). Returns the unscaled loss.
double micro_batch(QaModel& model, GradBuckets* buckets, bool last, const BatchBuffers& batch, int64_t row_offset,
                   uint64_t dropout_seed, float loss_scale);

// The last micro-batch of a rank that has no rows in it: its buckets still take part in the sum, with
// zeros.
void empty_micro_batch(QaModel& model, GradBuckets& buckets);

}  // namespace cpuft
