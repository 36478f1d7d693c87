// Quantization: parameters, the (one-off) weight quantization, and dispatch to the ISA kernels.
#include "cpuft/kernels/quantize.h"

#include <cmath>

#include "cpuft/kernels/isa_tables.h"
#include "cpuft/kernels/quantize_params.h"
#include "cpuft/util/error.h"

namespace cpuft {

ActivationQuant activation_quant(float lo, float hi, int levels) {
  if (!std::isfinite(lo) || !std::isfinite(hi))
    fail("activation range [", lo, ", ", hi, "]: expected finite bounds");
  const quant_detail::RowQuant p = quant_detail::row_quant(lo, hi, levels);
  return {p.scale, p.zero};
}

void quantize_weight_s8(int8_t* q, float* scale, int32_t* colsum, const float* w, int64_t out, int64_t in) {
#pragma omp parallel for schedule(static)
  for (int64_t n = 0; n < out; ++n) {
    const float* row = w + n * in;
    float amax = 0.f;
    for (int64_t k = 0; k < in; ++k) amax = std::fmax(amax, std::fabs(row[k]));
    const float s = amax > 0.f && std::isfinite(amax) ? amax / 127.f : 1.f;
    int32_t sum = 0;
    for (int64_t k = 0; k < in; ++k) {
      const float v = std::fmin(std::fmax(std::nearbyint(row[k] / s), -127.f), 127.f);
      q[n * in + k] = static_cast<int8_t>(v);
      sum += static_cast<int32_t>(v);
    }
    scale[n] = s;
    if (colsum) colsum[n] = sum;
  }
}

const QuantKernels& quant_kernels(Isa isa) {
  return isa_pick(isa, &ref_quant_kernels, &avx2_quant_kernels, &avx512_quant_kernels, &avx512_quant_kernels)();
}

namespace {
const QuantKernels& chosen() {
  static const QuantKernels& k = quant_kernels(kernel_isa());
  return k;
}
}  // namespace

void quantize_rows_u8(uint8_t* q, float* scale, int32_t* zero, const float* x, int64_t rows, int64_t cols,
                      int levels) {
  chosen().quantize_rows_u8(q, scale, zero, x, rows, cols, levels);
}

void quantize_u8(uint8_t* q, const float* x, int64_t rows, int64_t cols, ActivationQuant p, int levels) {
  chosen().quantize_u8(q, x, rows, cols, 1.f / p.scale, p.zero, levels);
}

void dequantize_s32(float* y, const int32_t* acc, const float* a_scale, const int32_t* a_zero, const float* w_scale,
                    const int32_t* w_colsum, const float* bias, int64_t rows, int64_t cols) {
  chosen().dequantize_s32(y, acc, a_scale, a_zero, w_scale, w_colsum, bias, rows, cols);
}

}  // namespace cpuft
