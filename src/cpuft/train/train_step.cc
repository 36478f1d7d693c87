#include "cpuft/train/train_step.h"

#include "cpuft/model/batch_view.h"

namespace cpuft {

std::unique_ptr<GradBuckets> make_grad_buckets(Communicator& comm, QaModel& model, double bucket_mb, WireType wire,
                                               const std::vector<int>& spare_cpus) {
  SparseRegion words;
  words.begin = model.table().embeddings().word;
  words.rows = static_cast<size_t>(model.config().vocab_size);
  words.width = static_cast<size_t>(model.config().hidden);
  return std::make_unique<GradBuckets>(comm, model.grads(), model.num_params(),
                                       static_cast<size_t>(bucket_mb * 1024 * 1024), wire, spare_cpus, words);
}

double micro_batch(QaModel& model, GradBuckets* buckets, bool last, const BatchBuffers& batch, int64_t row_offset,
                   uint64_t dropout_seed, float loss_scale) {
  if (buckets && last) buckets->begin_step();  // the plain sum: each rank's loss carries its weight
  if (buckets) buckets->note_rows(batch.input_ids.data(), static_cast<size_t>(batch.rows) * batch.seq_len);
  if (buckets && last)
    model.set_grad_ready_callback([buckets](size_t b, size_t e) { buckets->mark_ready(b, e); });
  else
    model.set_grad_ready_callback(nullptr);
  return model.forward_backward(batch_view(batch, row_offset), dropout_seed, loss_scale);
}

void empty_micro_batch(QaModel& model, GradBuckets& buckets) {
  buckets.begin_step();
  buckets.mark_ready(0, model.num_params());
}

}  // namespace cpuft
