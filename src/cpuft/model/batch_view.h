// The one way a gathered batch reaches the model: QaModel::Batch pointing into BatchBuffers' arrays.
// Training, inference, quantize's calibration and bench all pass their batches through it. The model
// side owns it: the model reads what data/batch gathers (model comes after data in the dependency
// order), while data/ knows nothing of the model.
#pragma once

#include <cstdint>

#include "cpuft/data/batch.h"
#include "cpuft/model/qa_model.h"

namespace cpuft {

// `b` (padded or packed) must outlive the view. `row_offset`: the index of b's row 0 in the global
// batch (data/sampler.h), which draws the dropout masks; 0 for a single process and for inference.
inline QaModel::Batch batch_view(const BatchBuffers& b, int64_t row_offset = 0) {
  QaModel::Batch v;
  v.input_ids = b.input_ids.data();
  v.token_type_ids = b.token_type_ids.data();
  v.attention_mask = b.attention_mask.data();
  v.start_positions = b.start_positions.empty() ? nullptr : b.start_positions.data();
  v.end_positions = b.end_positions.empty() ? nullptr : b.end_positions.data();
  v.labels = b.labels.empty() ? nullptr : b.labels.data();
  v.targets = b.targets.empty() ? nullptr : b.targets.data();
  v.cu_seqlens = b.cu_seqlens.empty() ? nullptr : b.cu_seqlens.data();
  v.batch = b.rows;
  v.seq_len = b.seq_len;
  v.row_offset = row_offset;
  return v;
}

}  // namespace cpuft
