#include "cpuft/model/encoder_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cpuft/model/linear.h"

namespace cpuft {

void layernorm_fwd(float* y, float* mean, float* rstd, const float* x, const float* w, const float* b,
                   int64_t rows, int64_t cols, float eps) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float s = 0.f;
    for (int64_t j = 0; j < cols; ++j) s += xr[j];
    const float m = s / static_cast<float>(cols);
    float v = 0.f;
    for (int64_t j = 0; j < cols; ++j) v += (xr[j] - m) * (xr[j] - m);
    const float rs = 1.f / std::sqrt(v / static_cast<float>(cols) + eps);
    for (int64_t j = 0; j < cols; ++j) yr[j] = (xr[j] - m) * rs * w[j] + b[j];
    mean[r] = m;
    rstd[r] = rs;
  }
}

void layernorm_bwd(float* dx, float* dw, float* db, const float* dy, const float* x, const float* mean,
                   const float* rstd, const float* w, int64_t rows, int64_t cols, float* scratch,
                   const float* ones) {
  const float inv_n = 1.f / static_cast<float>(cols);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    const float* dyr = dy + r * cols;
    float* dxr = dx + r * cols;
    float* tr = scratch + r * cols;  // dy * xhat, summed over rows below for dw
    const float m = mean[r], rs = rstd[r];
    float sum_g = 0.f, sum_gx = 0.f;
    for (int64_t j = 0; j < cols; ++j) {
      const float xhat = (xr[j] - m) * rs;
      const float g = dyr[j] * w[j];
      sum_g += g;
      sum_gx += g * xhat;
      tr[j] = dyr[j] * xhat;
    }
    sum_g *= inv_n;
    sum_gx *= inv_n;
    for (int64_t j = 0; j < cols; ++j) {
      const float xhat = (xr[j] - m) * rs;
      dxr[j] = rs * (dyr[j] * w[j] - sum_g - xhat * sum_gx);
    }
  }
  column_sums_add(dw, scratch, ones, rows, cols);
  column_sums_add(db, dy, ones, rows, cols);
}

void gelu_fwd(float* y, const float* x, int64_t n) {
  const float inv_sqrt2 = static_cast<float>(1.0 / std::sqrt(2.0));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) y[i] = 0.5f * x[i] * (1.f + std::erf(x[i] * inv_sqrt2));
}

void gelu_bwd(float* dx, const float* dy, const float* x, int64_t n) {
  const float inv_sqrt2 = static_cast<float>(1.0 / std::sqrt(2.0));
  const float inv_sqrt2pi = static_cast<float>(1.0 / std::sqrt(2.0 * M_PI));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float cdf = 0.5f * (1.f + std::erf(x[i] * inv_sqrt2));
    const float pdf = inv_sqrt2pi * std::exp(-0.5f * x[i] * x[i]);
    dx[i] = dy[i] * (cdf + x[i] * pdf);
  }
}

uint32_t dropout_threshold(float p) {
  return static_cast<uint32_t>(std::min(4294967295.0, std::ldexp(static_cast<double>(p), 32)));
}

bool dropout_keep(uint64_t seed, uint64_t site, uint64_t i, uint32_t threshold) {
  // splitmix64 finaliser over a (seed, site, index) counter: a stateless, well-mixed stream.
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + (site << 40) + i + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<uint32_t>(z >> 32) >= threshold;
}

void dropout_apply(float* x, int64_t n, float p, uint64_t seed, uint64_t site) {
  if (p <= 0.f) return;
  const uint32_t thr = dropout_threshold(p);
  const float scale = 1.f / (1.f - p);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    x[i] = dropout_keep(seed, site, static_cast<uint64_t>(i), thr) ? x[i] * scale : 0.f;
}

float qa_loss_fwd_bwd(float* dlogits, const float* logits, const int32_t* start, const int32_t* end,
                      int64_t rows, int64_t t, float scale) {
  double total[2] = {0.0, 0.0};
  int64_t counted[2] = {0, 0};
  const int32_t* positions[2] = {start, end};
  auto label = [&](int head, int64_t r) { return std::clamp<int64_t>(positions[head][r], 0, t); };
  for (int head = 0; head < 2; ++head)
    for (int64_t r = 0; r < rows; ++r) counted[head] += label(head, r) != t;
  for (int head = 0; head < 2; ++head) {
    for (int64_t r = 0; r < rows; ++r) {
      const float* z = logits + r * t * 2 + head;
      float* dz = dlogits + r * t * 2 + head;
      const int64_t y = label(head, r);
      if (y == t) {
        for (int64_t j = 0; j < t; ++j) dz[2 * j] = 0.f;
        continue;
      }
      float mx = -std::numeric_limits<float>::infinity();
      for (int64_t j = 0; j < t; ++j) mx = std::max(mx, z[2 * j]);
      double sum = 0.0;
      for (int64_t j = 0; j < t; ++j) sum += std::exp(static_cast<double>(z[2 * j] - mx));
      const double lse = mx + std::log(sum);
      total[head] += lse - z[2 * y];
      const double g = scale / (2.0 * static_cast<double>(counted[head]));
      for (int64_t j = 0; j < t; ++j)
        dz[2 * j] = static_cast<float>((std::exp(z[2 * j] - lse) - (j == y ? 1.0 : 0.0)) * g);
    }
  }
  const double ce_start = total[0] / static_cast<double>(counted[0]);
  const double ce_end = total[1] / static_cast<double>(counted[1]);
  return static_cast<float>((ce_start + ce_end) / 2.0);
}

}  // namespace cpuft
