// AdamW over the parameter arena of a QaModel (torch.optim.AdamW, docs/parity.md, Training) with the
// two weight-decay groups of the Trainer, clip_grad_norm_, and the update that combines them. The moments m and v are two
// more arenas with the parameter layout.
#pragma once

#include <cstdint>
#include <vector>

#include "cpuft/model/qa_model.h"
#include "cpuft/util/aligned_vector.h"

namespace cpuft {

struct AdamWConfig {
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double weight_decay = 0.0;  // applied to the decay set only
};

class AdamW {
 public:
  AdamW(const QaModel& model, AdamWConfig config);

  // One update with learning rate lr from model.grads() times grad_scale (clip_grad_norm_'s coefficient,
  // applied as each gradient is read: the bits of scaling them first); refreshes the model's bf16 weight
  // copies. zero_grads: each gradient is zeroed in the same pass once read (QaModel::zero_grads()'s
  // result, without its pass).
  void step(QaModel& model, double lr, float grad_scale = 1.0f, bool zero_grads = false);

  int64_t steps() const { return step_; }
  AlignedVector<float>& exp_avg() { return m_; }
  AlignedVector<float>& exp_avg_sq() { return v_; }
  // Restores the step count (for resuming from a checkpoint together with exp_avg / exp_avg_sq).
  void set_steps(int64_t steps) { step_ = steps; }

 private:
  AdamWConfig config_;
  AlignedVector<float> m_, v_;
  int64_t step_ = 0;
};

// clip_grad_norm_(max_norm) over the whole gradient arena: returns the total L2 norm (of the
// per-tensor norms) before clipping and multiplies every gradient by clip_coefficient(max_norm, total).
// max_norm <= 0 only measures.
double clip_grad_norm(QaModel& model, double max_norm);

// clip_grad_norm_'s factor: min(1, max_norm / (total_norm + 1e-6)) in f32; 1 when max_norm <= 0.
float clip_coefficient(double max_norm, double total_norm);

// What ends every optimizer step once its gradients are summed, for cpuft train and cpuft bench alike:
// clip_grad_norm(max_grad_norm), opt.step(lr), the gradients zeroed for the next step, as one pass over
// the gradients after the norm (the clip and the zeroing inside the update: the same bits). Returns the
// norm before clipping; when it is not finite, nothing is updated (weights and gradients stay as they are).
double optimizer_step(QaModel& model, AdamW& opt, double max_grad_norm, double lr);

}  // namespace cpuft
