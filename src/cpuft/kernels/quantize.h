// Int8 quantization of the operands of the int8 linear layers (kernels/gemm_int8.h), and the pass
// that turns their s32 products back into f32.
//
//   weights      s8, symmetric, one scale per output channel:  w[n][k] ~ w_scale[n] * q[n][k],
//                q in [-127, 127], w_scale[n] = max_k |w[n][k]| / 127.
//   activations  u8, asymmetric:  x ~ scale * (q - zero), q in [0, levels], the range widened to hold
//                0 (so that 0 is exact). Dynamic: one (scale, zero) per row (per token), from that
//                row's minimum and maximum; static: one (scale, zero) for the whole matrix, from a
//                range measured on calibration data.
//   levels       255, or 127 where the int8 product has no VNNI: without it oneDNN multiplies with
//                AVX2's vpmaddubsw, which adds two u8 x s8 products in a saturating 16-bit lane
//                (255 * 127 * 2 > 32767); with u8 <= 127 the sum always fits.
//   dequantize   y[m][n] = a_scale[m] * w_scale[n] * (acc[m][n] - a_zero[m] * w_colsum[n]) + bias[n],
//                acc the s32 product of the u8 and s8 matrices, w_colsum[n] = sum_k q[n][k]: the
//                zero point's share of the product, subtracted exactly in integers.
// Rounding is to nearest, ties to even, everywhere; every ISA gives the same bits (the vector code
// uses one fused multiply-add where the reference calls std::fma).
#pragma once

#include <cstdint>

#include "cpuft/cpu/isa.h"

namespace cpuft {

struct ActivationQuant {
  float scale = 1.f;
  int32_t zero = 0;
};

// The (scale, zero) of the range [lo, hi] (widened to hold 0) on 0 .. levels. A range of width 0
// gives scale 1, zero 0. Non-finite bounds throw cpuft::Error.
ActivationQuant activation_quant(float lo, float hi, int levels);

// q[out][in] and scale[out] of a weight matrix w[out][in] (symmetric, per row = output channel);
// a row of zeros gets scale 1. colsum[out] (nullable) = sum of each row of q.
void quantize_weight_s8(int8_t* q, float* scale, int32_t* colsum, const float* w, int64_t out, int64_t in);

// Dynamic: q[rows][cols] with each row's own (scale[r], zero[r]) from its min and max.
void quantize_rows_u8(uint8_t* q, float* scale, int32_t* zero, const float* x, int64_t rows, int64_t cols,
                      int levels);
// Static: q[rows][cols] with one (scale, zero) for all rows (values outside the range clip).
void quantize_u8(uint8_t* q, const float* x, int64_t rows, int64_t cols, ActivationQuant p, int levels);

// y[rows][cols] from the s32 product acc (see above). acc may be the same memory as y (the product
// is written over the output buffer and converted in place); bias nullable.
void dequantize_s32(float* y, const int32_t* acc, const float* a_scale, const int32_t* a_zero, const float* w_scale,
                    const int32_t* w_colsum, const float* bias, int64_t rows, int64_t cols);

// The per-ISA implementations (tests compare them; the functions above use the one of kernel_isa()).
struct QuantKernels {
  const char* name;
  void (*quantize_rows_u8)(uint8_t*, float*, int32_t*, const float*, int64_t, int64_t, int);
  void (*quantize_u8)(uint8_t*, const float*, int64_t, int64_t, float inv_scale, int32_t zero, int levels);
  // acc is read through a void pointer: it may be y's own storage.
  void (*dequantize_s32)(float*, const void*, const float*, const int32_t*, const float*, const int32_t*,
                         const float*, int64_t, int64_t);
};
const QuantKernels& quant_kernels(Isa isa);

}  // namespace cpuft
