// Scalar pieces shared by every ISA's quantization kernels (private to kernels/quantize*): one
// definition, so the reference and the vector code derive identical scales and zero points.
#pragma once

#include <cmath>
#include <cstdint>

namespace cpuft::quant_detail {

// (scale, 1 / scale, zero) of the range [lo, hi] widened to hold 0, on 0 .. levels.
struct RowQuant {
  float scale, inv_scale;
  int32_t zero;
};

inline RowQuant row_quant(float lo, float hi, int levels) {
  lo = std::fmin(lo, 0.f);
  hi = std::fmax(hi, 0.f);
  const float width = hi - lo;
  if (!(width > 0.f) || !std::isfinite(width)) return {1.f, 1.f, 0};
  const float scale = width / static_cast<float>(levels);
  float zero = std::nearbyint(-lo / scale);
  zero = std::fmin(std::fmax(zero, 0.f), static_cast<float>(levels));
  return {scale, 1.f / scale, static_cast<int32_t>(zero)};
}

// One activation: round(x / scale) + zero, clipped to [0, levels].
inline uint8_t quantize_one(float x, float inv_scale, int32_t zero, int levels) {
  float v = std::nearbyint(x * inv_scale) + static_cast<float>(zero);
  v = std::fmin(std::fmax(v, 0.f), static_cast<float>(levels));
  return static_cast<uint8_t>(v);
}

}  // namespace cpuft::quant_detail
