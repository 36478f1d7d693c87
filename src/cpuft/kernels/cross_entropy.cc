// QA cross-entropy (docs/parity.md, Model): scalar, f32, tiny shapes.
#include "cpuft/kernels/cross_entropy.h"
#include "cpuft/util/op_profile.h"

#include <cmath>
#include <limits>

namespace cpuft {
namespace {

// One head at channel `ch` of logits (B,T,2). Returns the summed CE of the kept rows and their
// count; writes softmax - onehot (unscaled) into dlogits for kept rows, 0 for ignored ones.
double head_loss(float* dlogits, const float* logits, const int32_t* labels, int B, int T, int ch,
                 int* kept) {
  double total = 0.0;
  *kept = 0;
  for (int b = 0; b < B; ++b) {
    const float* z = logits + static_cast<int64_t>(b) * T * 2 + ch;
    float* dz = dlogits ? dlogits + static_cast<int64_t>(b) * T * 2 + ch : nullptr;
    const int32_t y = labels[b] < 0 ? 0 : (labels[b] > T ? T : labels[b]);
    if (y == T) {
      if (dz) {
        for (int t = 0; t < T; ++t) dz[2 * t] = 0.0f;
      }
      continue;
    }
    float mx = -INFINITY;
    for (int t = 0; t < T; ++t) mx = std::fmax(mx, z[2 * t]);
    float sum = 0.0f;
    for (int t = 0; t < T; ++t) sum += std::exp(z[2 * t] - mx);
    const float lse = mx + std::log(sum);
    total += static_cast<double>(lse - z[2 * y]);
    ++*kept;
    if (dz) {
      for (int t = 0; t < T; ++t) dz[2 * t] = std::exp(z[2 * t] - lse);
      dz[2 * y] -= 1.0f;
    }
  }
  return total;
}

void scale_head(float* dlogits, int B, int T, int ch, float factor) {
  for (int64_t i = 0; i < static_cast<int64_t>(B) * T; ++i) dlogits[2 * i + ch] *= factor;
}

}  // namespace

QaLoss qa_cross_entropy(float* dlogits, const float* logits, const int32_t* start_pos,
                        const int32_t* end_pos, int B, int T, float grad_scale) {
  OpScope scope(Op::kLoss);
  QaLoss r{};
  const double s = head_loss(dlogits, logits, start_pos, B, T, 0, &r.n_start);
  const double e = head_loss(dlogits, logits, end_pos, B, T, 1, &r.n_end);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Means in f32 as torch's reduction does (0/0 = NaN when every row is ignored).
  r.ce_start = r.n_start ? static_cast<float>(s) / static_cast<float>(r.n_start) : nan;
  r.ce_end = r.n_end ? static_cast<float>(e) / static_cast<float>(r.n_end) : nan;
  r.loss = (r.ce_start + r.ce_end) / 2.0f;
  if (dlogits) {
    scale_head(dlogits, B, T, 0, r.n_start ? grad_scale / (2.0f * r.n_start) : 0.0f);
    scale_head(dlogits, B, T, 1, r.n_end ? grad_scale / (2.0f * r.n_end) : 0.0f);
  }
  return r;
}

}  // namespace cpuft
