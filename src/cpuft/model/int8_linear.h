// The int8 linear layers of a quantized model (docs/quantization.md): weights s8 with one scale per
// output channel, activations quantized to u8 as they arrive (per token, or with a calibrated range),
// the product in oneDNN (kernels/gemm_int8.h, s32 accumulation) and turned back into f32 with the
// bias added (kernels/quantize.h). Everything else in the model stays f32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "cpuft/util/aligned_vector.h"

namespace cpuft {

struct Int8Linear {
  int64_t out = 0, in = 0;
  AlignedVector<int8_t> w;        // [out, in]
  std::vector<float> w_scale;     // [out]: w_f32[n][k] ~ w_scale[n] * w[n][k]
  std::vector<int32_t> w_colsum;  // [out]: sum over k of w[n][k] (the activation zero point's share)
  // Static activations: the input range measured on calibration windows; dynamic (per token) when
  // has_range is false.
  bool has_range = false;
  float range_lo = 0.f, range_hi = 0.f;
};

// Every int8 layer of a model, by the parameter-table offset of the f32 weight it replaces.
struct Int8Weights {
  std::unordered_map<size_t, Int8Linear> layers;
  bool static_activations = false;
  const Int8Linear* find(size_t weight_offset) const {
    auto it = layers.find(weight_offset);
    return it == layers.end() ? nullptr : &it->second;
  }
};

// y[rows, out] = x[rows, in] W^T + bias (bias nullable) through the int8 product. Scratch for the
// quantized input is grown on demand and kept (no allocation after the first batch of a size).
void int8_linear_fwd(float* y, const float* x, const Int8Linear& layer, const float* bias, int64_t rows);

// A layer quantized from f32 weights w[out, in] (per-channel symmetric s8).
Int8Linear quantize_linear(const float* w, int64_t out, int64_t in);

}  // namespace cpuft
