#include "cpuft/model/optimizer.h"

#include <cmath>

namespace cpuft {
namespace {

// torch >= 2.0 single-tensor AdamW, f32 elementwise with the scalars rounded to f32 where used.
void adamw_update(float* w, float* m, float* v, const float* g, int64_t n, double lr, double wd,
                  const AdamWConfig& c, int64_t t) {
  const float decay = static_cast<float>(1.0 - lr * wd);
  const float one_minus_b1 = static_cast<float>(1.0 - c.beta1);
  const float b2 = static_cast<float>(c.beta2);
  const float one_minus_b2 = static_cast<float>(1.0 - c.beta2);
  const double bc1 = 1.0 - std::pow(c.beta1, static_cast<double>(t));
  const double bc2 = 1.0 - std::pow(c.beta2, static_cast<double>(t));
  const float neg_step = static_cast<float>(-(lr / bc1));
  const float bc2_sqrt = static_cast<float>(std::sqrt(bc2));
  const float eps = static_cast<float>(c.eps);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    float wi = w[i];
    if (wd != 0.0) wi = wi * decay;
    const float mi = m[i] + one_minus_b1 * (g[i] - m[i]);
    const float vi = v[i] * b2 + one_minus_b2 * g[i] * g[i];
    const float denom = std::sqrt(vi) / bc2_sqrt + eps;
    w[i] = wi + neg_step * (mi / denom);
    m[i] = mi;
    v[i] = vi;
  }
}

}  // namespace

AdamW::AdamW(const QaModel& model, AdamWConfig config)
    : config_(config), m_(model.num_params(), 0.f), v_(model.num_params(), 0.f) {}

void AdamW::step(QaModel& model, double lr) {
  ++step_;
  for (const ParamEntry& e : model.table().entries())
    adamw_update(model.params() + e.offset, m_.data() + e.offset, v_.data() + e.offset, model.grads() + e.offset,
                 static_cast<int64_t>(e.numel), lr, e.decay ? config_.weight_decay : 0.0, config_, step_);
  model.refresh_bf16_weights();
}

double clip_grad_norm(QaModel& model, double max_norm) {
  double total_sq = 0.0;
  for (const ParamEntry& e : model.table().entries()) {
    const float* g = model.grads() + e.offset;
    const int64_t n = static_cast<int64_t>(e.numel);
    double s = 0.0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (int64_t i = 0; i < n; ++i) s += static_cast<double>(g[i]) * g[i];
    total_sq += s;
  }
  const double total = std::sqrt(total_sq);
  if (max_norm > 0.0) {
    const float coef = static_cast<float>(std::min(1.0, max_norm / (total + 1e-6)));
    float* g = model.grads();
    const int64_t n = static_cast<int64_t>(model.num_params());
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) g[i] *= coef;
  }
  return total;
}

}  // namespace cpuft
