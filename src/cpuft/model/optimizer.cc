#include "cpuft/model/optimizer.h"

#include <algorithm>
#include <cmath>

#include "cpuft/kernels/adamw.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {

AdamW::AdamW(const QaModel& model, AdamWConfig config) : config_(config) {
  m_ = AlignedVector<float>(model.num_params());
  v_ = AlignedVector<float>(model.num_params());
}

void AdamW::step(QaModel& model, double lr, float grad_scale, bool zero_grads) {
  ++step_;
  for (const ParamEntry& e : model.table().entries()) {
    const AdamWParams p{lr,         config_.beta1, config_.beta2, config_.eps, e.decay ? config_.weight_decay : 0.0,
                        grad_scale, zero_grads};
    // The bf16 copy of a matrix-product weight is written in the same pass.
    adamw_step(model.params() + e.offset, m_.data() + e.offset, v_.data() + e.offset, model.bf16_copy(e.offset),
               model.grads() + e.offset, static_cast<int64_t>(e.numel), p, step_);
    // The copies in oneDNN's layouts of the weights this entry completes, while their masters are in cache.
    model.refresh_blocked_copies_ending_at(e.offset + e.numel);
  }
}

double clip_grad_norm(QaModel& model, double max_norm) {
  OpScope scope(Op::kGradNorm);
  double total_sq = 0.0;  // sum over tensors of norm_i^2 = sum_squares(g_i)
  for (const ParamEntry& e : model.table().entries())
    total_sq += sum_squares(model.grads() + e.offset, static_cast<int64_t>(e.numel));
  const double total = std::sqrt(total_sq);
  if (max_norm > 0.0) scale_inplace(model.grads(), static_cast<int64_t>(model.num_params()), clip_coefficient(max_norm, total));
  return total;
}

float clip_coefficient(double max_norm, double total_norm) {
  return max_norm > 0.0 ? static_cast<float>(std::min(1.0, max_norm / (total_norm + 1e-6))) : 1.0f;
}

double optimizer_step(QaModel& model, AdamW& opt, double max_grad_norm, double lr) {
  const double norm = clip_grad_norm(model, 0.0);  // measured only: the update applies the clip
  if (!std::isfinite(norm)) return norm;
  opt.step(model, lr, clip_coefficient(max_grad_norm, norm), /*zero_grads=*/true);
  return norm;
}

}  // namespace cpuft
