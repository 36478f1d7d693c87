// ISA dispatch: one table of function pointers per instruction set, chosen once per process from
// kernel_isa() (cpu/cpu_features.h; CPUFT_ISA=ref|avx2|avx512 forces). The public functions in the
// kernel headers call through kernels(); tests call kernel_table(isa) to compare ISAs.
//
// Conventions shared by cpuft's own kernels (every <op>.h of this folder except gemm.h):
// - Plain pointers and sizes, outputs first, f32 compute. Shapes in comments use llm.c style:
//   (B,T,C) = batch, tokens, channels; (N,C) = N rows of C contiguous values (N = B*T usually).
// - bf16 values are uint16_t (the upper half of an f32, rounded to nearest even, NaN kept NaN).
//   Where the next matrix product wants a bf16 input, a kernel takes `uint16_t* out_bf16`
//   (nullable) and writes the bf16 copy in the same pass.
// - GRADIENT RULE: parameter gradients ACCUMULATE (+=), so the caller zeroes them once per
//   optimizer step and gradient accumulation over micro-batches just works; activation gradients
//   OVERWRITE (=). The residual stream is the one exception the caller arranges: layernorm_bwd
//   overwrites dx, and the caller then lets the other consumer of the same activation (the next
//   GEMM's backward-data) ACCUMULATE into that buffer (see layernorm.h).
// - In-place use is allowed where a header says "may alias"; otherwise buffers must not overlap.
// - Every kernel is deterministic: results do not depend on the OpenMP thread count
//   (reductions across rows use fixed, thread-independent blocking and order).
// - Each kernel exists as a scalar reference and as AVX2 and AVX-512 versions, chosen once per
//   process by this table. The exception is qa_cross_entropy (cross_entropy.h): one scalar function
//   outside the table, as it reads a few values per row.
//
// Adding a kernel: declare it in <op>.h (outputs first, shapes in comments); write the plain
// formula in <op>_ref.cc (namespace ref, declared in ref_kernels.h); write the vector version
// ONCE in <op>_vec.h as a template over the Vec interface (vec_avx2.h / vec_avx512.h: load,
// store, partial tail loads, fma, exp, erf, reductions, bf16 stores); add a pointer to
// KernelTable and fill it in kernel_table.cc (ref) and kernels_vec.h (both vector ISAs); make
// the public function in <op>.cc call kernels().<op>; test vector vs ref on tail widths
// (tests/kernels/, IsaTest) and the gradient against finite differences.
#pragma once

#include <cstdint>

#include "cpuft/cpu/cpu_features.h"
#include "cpuft/kernels/adamw.h"

namespace cpuft {

// Elements per block of block_sum_squares (a fixed size: the sum does not depend on threads).
constexpr int64_t kSumSquaresBlock = 4096;

// Same signatures as the public functions, except where noted: the public wrappers validate
// arguments (ids in range, n < 2^32) and precompute scalars, the table entries only compute.
struct KernelTable {
  const char* name;  // "ref", "avx2", "avx512"
  // embedding_fwd without the range checks (vocab, n_types, n_positions).
  void (*embedding_fwd)(float* out, const int32_t* ids, const int8_t* type_ids, const int32_t* positions,
                        const float* wte, const float* wpe, const float* wtt, int64_t N, int C);
  void (*embedding_bwd)(float* dwte, float* dwpe, float* dwtt, const float* dout, const int32_t* ids,
                        const int8_t* type_ids, const int32_t* positions, int64_t N, int C, int pad_id);
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
