// Matrix products of the encoder (private to model/). The linear layers run through kernels/gemm.h:
// their operands are f32, or in bf16 mode bf16 (uint16 storage: activations, output gradients and
// weight copies), so oneDNN runs bf16 x bf16 products with f32 accumulation on AMX or AVX512_BF16
// and gemm.h emulates them in f32 where it cannot (AVX2-only CPUs), with the same numbers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpuft/tensor/dtype.h"

namespace cpuft {

// An operand of a linear-layer product: `data` holds f32 values or bf16 (uint16_t) values.
struct GemmIn {
  const void* data = nullptr;
  DType dtype = DType::kF32;
  // A bf16 weight only: its copies in oneDNN's layouts for the forward product and for backward-data
  // (kernels/gemm.h block_weight), each nullable.
  const void* forward_blocked = nullptr;
  const void* backward_blocked = nullptr;
};

// The operand a product reads from the f32 tensor x (n elements): x itself when b16 is null (f32
// mode), else x rounded to bf16 into b16.
GemmIn gemm_operand(const float* x, uint16_t* b16, int64_t n);
// Rounds x to the values bf16 holds, in place, when bf16 is set: tensors that autocast computes in
// bf16 and that other kernels read as f32 (q, k, v, the logits, the context gradient).
void round_bf16_in_place(float* x, int64_t n, bool bf16);
// A saved operand: b16 when it is set (bf16 mode), else x.
inline GemmIn saved_operand(const float* x, const uint16_t* b16) {
  return b16 ? GemmIn{b16, DType::kBf16} : GemmIn{x, DType::kF32};
}

// y[rows, out] = x[rows, in] W[out, in]^T + bias[out]  (x and W of one dtype).
void linear_fwd(float* y, GemmIn x, GemmIn w, const float* bias, int64_t rows, int64_t in, int64_t out);
// y[rows, out] = x W^T + bias as bf16, as autocast's bf16 product leaves it: bf16 mode's q, k and v,
// which the attention core reads as bf16, the projections whose bf16 outputs dropout or the residual
// read, and the FFN's pre-activation, which GELU reads.
void linear_bf16_fwd(uint16_t* y, GemmIn x, GemmIn w, const float* bias, int64_t rows, int64_t in, int64_t out);

// Where a product writes: f32, or bf16 (uint16_t) storage where a bf16 product reads the result next.
struct GemmOut {
  void* data = nullptr;
  DType dtype = DType::kF32;
  GemmOut(std::nullptr_t) {}
  GemmOut(float* p) : data(p) {}
  GemmOut(uint16_t* p) : data(p), dtype(p ? DType::kBf16 : DType::kF32) {}
};
// dx[rows, in] = dy W (written, or added when accumulate_dx; f32 or bf16; dx may be null: no input
// gradient);
// dW += dy^T x; dbias += column sums of dy32, the f32 output gradient that dy holds (or rounds);
// dbias and dy32 null: the caller has added the bias gradient already (gelu_bwd does, in its pass).
void linear_bwd(GemmOut dx, float* dw, float* dbias, const float* dy32, GemmIn dy, GemmIn x, GemmIn w, int64_t rows,
                int64_t in, int64_t out, bool accumulate_dx);

}  // namespace cpuft
