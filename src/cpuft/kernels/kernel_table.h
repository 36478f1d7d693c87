// ISA dispatch: one table of function pointers per instruction set, chosen once per process from
// kernel_isa() (cpu/features.h; CPUFT_ISA=ref|avx2|avx512 forces). The public functions in the
// kernel headers call through kernels(); tests call kernel_table(isa) to compare ISAs.
#pragma once

#include <cstdint>

#include "cpuft/cpu/features.h"
#include "cpuft/kernels/adamw.h"

namespace cpuft {

// Elements per block of block_sum_squares (a fixed size: the sum does not depend on threads).
constexpr int64_t kSumSquaresBlock = 4096;

// Same signatures as the public functions, except where noted: the public wrappers validate
// arguments (ids in range, n < 2^32) and precompute scalars, the table entries only compute.
struct KernelTable {
  const char* name;  // "ref", "avx2", "avx512"
  // embedding_fwd without the range check (vocab, n_types).
  void (*embedding_fwd)(float*, const int32_t*, const int8_t*, const float*, const float*,
                        const float*, int, int, int);
  void (*embedding_bwd)(float*, float*, float*, const float*, const int32_t*, const int8_t*, int,
                        int, int, int);
  void (*layernorm_fwd)(float*, uint16_t*, float*, float*, float*, const float*, const float*,
                        const float*, const float*, int, int, float);
  void (*layernorm_bwd)(float*, float*, float*, const float*, const float*, const float*,
                        const float*, const float*, int, int);
  void (*gelu_fwd)(float*, uint16_t*, float*, const float*, int64_t, int64_t);
  void (*gelu_bwd)(float*, const float*, const float*, int64_t);
  void (*bias_grad)(float*, const float*, int64_t, int64_t);
  void (*softmax_fwd)(float*, uint16_t*, const float*, const int8_t*, int, int, int, int, float, float);
  void (*softmax_bwd)(float*, const float*, const float*, const int8_t*, int, int, int, int, float);
  // out = in * keep * scale with keep from (key, index) and the 24-bit threshold (dropout.h);
  // both dropout_fwd and dropout_bwd are this one operation. out nullable, out_bf16 nullable.
  void (*dropout_apply)(float* out, uint16_t* out_bf16, const float* in, int64_t n, float scale,
                        uint64_t key, uint32_t threshold24);
  void (*adamw_step)(float*, float*, float*, uint16_t*, const float*, int64_t,
                     const AdamWParams&, int64_t);
  // Sums of squares per block of kSumSquaresBlock elements (out has ceil(n / block) entries, in
  // double); sum_squares() adds them in order.
  void (*block_sum_squares)(double* out, const float* x, int64_t n);
  void (*scale_inplace)(float*, int64_t, float);
  // Vector math exposed for tests (n elements, out may alias in): exp and erf in f32.
  void (*exp_f32)(float*, const float*, int64_t);
  void (*erf_f32)(float*, const float*, int64_t);
};

// The table of an ISA; throws cpuft::Error if this CPU cannot run it.
const KernelTable& kernel_table(Isa isa);

// The table chosen once from kernel_isa().
const KernelTable& kernels();

}  // namespace cpuft
