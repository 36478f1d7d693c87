// Quantization kernels: scalar reference (the formulas of quantize.h, element by element).
#include <cmath>
#include <cstring>

#include "cpuft/kernels/isa_tables.h"
#include "cpuft/kernels/quantize.h"
#include "cpuft/kernels/quantize_params.h"

namespace cpuft {
namespace {

using quant_detail::quantize_one;
using quant_detail::row_quant;

void quantize_rows_u8_ref(uint8_t* q, float* scale, int32_t* zero, const float* x, int64_t rows, int64_t cols,
                          int levels) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    float lo = 0.f, hi = 0.f;
    for (int64_t c = 0; c < cols; ++c) lo = std::fmin(lo, row[c]), hi = std::fmax(hi, row[c]);
    const quant_detail::RowQuant p = row_quant(lo, hi, levels);
    scale[r] = p.scale;
    zero[r] = p.zero;
    for (int64_t c = 0; c < cols; ++c) q[r * cols + c] = quantize_one(row[c], p.inv_scale, p.zero, levels);
  }
}

void quantize_u8_ref(uint8_t* q, const float* x, int64_t rows, int64_t cols, float inv_scale, int32_t zero,
                     int levels) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) q[r * cols + c] = quantize_one(x[r * cols + c], inv_scale, zero, levels);
}

void dequantize_s32_ref(float* y, const void* acc, const float* a_scale, const int32_t* a_zero, const float* w_scale,
                        const int32_t* w_colsum, const float* bias, int64_t rows, int64_t cols) {
  const char* bytes = static_cast<const char*>(acc);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t i = r * cols + c;
      int32_t a;
      std::memcpy(&a, bytes + i * 4, 4);  // acc may be y's storage
      const float v = static_cast<float>(a - a_zero[r] * w_colsum[c]);
      y[i] = std::fma(v, a_scale[r] * w_scale[c], bias ? bias[c] : 0.f);
    }
  }
}

}  // namespace

const QuantKernels& ref_quant_kernels() {
  static const QuantKernels k{"ref", quantize_rows_u8_ref, quantize_u8_ref, dequantize_s32_ref};
  return k;
}

}  // namespace cpuft
