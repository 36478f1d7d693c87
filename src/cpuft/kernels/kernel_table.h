// ISA dispatch: one table of function pointers per instruction set, chosen once per process from
// kernel_isa() (cpu/isa.h, the one ISA choice; CPUFT_ISA forces it). The public functions in the
// kernel headers call through kernels(); tests call kernel_table(isa) to compare ISAs.
//
// Conventions shared by cpuft's own kernels (every <op>.h of this folder except the matrix products,
// gemm.h and gemm_int8.h, and quantize.h, which has a table of its own; bias_grad, the Linear layer's
// bias gradient, is declared in gemm.h beside the products but is one of ours):
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

#include "cpuft/cpu/isa.h"
#include "cpuft/kernels/adamw.h"
#include "cpuft/kernels/softmax.h"

namespace cpuft {

// Elements per block of block_sum_squares (a fixed size: the sum does not depend on threads).
constexpr int64_t kSumSquaresBlock = 4096;

// Same signatures as the public functions, except where noted: the public wrappers validate
// arguments (ids in range, n < 2^32) and precompute scalars, the table entries only compute.
struct KernelTable {
  const char* name;  // "ref", "avx2", "avx512", "avx512_bf16"
  // embedding_fwd without the range checks (vocab, n_types, n_positions).
  void (*embedding_fwd)(float* out, const int32_t* ids, const int8_t* type_ids, const int32_t* positions,
                        const float* wte, const float* wpe, const float* wtt, int64_t N, int C);
  void (*embedding_bwd)(float* dwte, float* dwpe, float* dwtt, const float* dout, const int32_t* ids,
                        const int8_t* type_ids, const int32_t* positions, int64_t N, int C, int pad_id);
  void (*layernorm_fwd)(float* out, uint16_t* out_bf16, float* mean, float* rstd, float* x_sum, const float* a,
                        const uint16_t* a_bf16, const float* r, const float* w, const float* b, int N, int C,
                        float eps);
  void (*layernorm_bwd)(float* dx, float* dw, float* db, const float* dout, const float* x, const float* mean,
                        const float* rstd, const float* w, int N, int C);
  void (*gelu_fwd)(float* out, uint16_t* out_bf16, const float* pre, const uint16_t* pre_bf16, int64_t M,
                   int64_t N);
  void (*gelu_bwd)(float* dpre, uint16_t* dpre_bf16, float* dbias, const float* dout, const uint16_t* dout_bf16,
                   const float* pre, const uint16_t* pre_bf16, int64_t M, int64_t N);
  void (*gelu_recompute)(float* out, float* pre, int64_t M, int64_t N);
  void (*gelu_bwd_factored)(float* dpre, float* dbias, const float* dout, const float* factor, int64_t M, int64_t N);
  void (*bias_grad)(float* db, const float* dy, int64_t M, int64_t N);
  // drop (nullable): the dropout done in the same passes (softmax.h's softmax_dropout_fwd, and
  // softmax_recompute_bwd's applying the kept bits).
  void (*softmax_fwd)(float* probs, uint16_t* probs_bf16, const float* scores, const int8_t* key_mask, int B, int H,
                      int Tq, int Tk, ScoreRead read, float mask_value, const DropoutPass* drop, float* stats);
  void (*softmax_recompute_bwd)(float* dscores, uint16_t* dscores_bf16, float* dropped, uint16_t* dropped_bf16,
                                float* scores, const float* ddropped, const int8_t* key_mask, int rows, int Tk,
                                ScoreRead read, float mask_value, const float* stats, const DropoutPass* drop);
  // out = in * keep * scale with keep from (key, index) and the 24-bit threshold (dropout.h);
  // both dropout_fwd and dropout_bwd are this one operation. out nullable, out_bf16 nullable; in f32, or
  // when null in_bf16 (bf16 values).
  void (*dropout_apply)(float* out, uint16_t* out_bf16, const float* in, const uint16_t* in_bf16, int64_t n,
                        float scale, uint64_t key, uint32_t threshold24);
  void (*adamw_step)(float* w, float* m, float* v, uint16_t* w_bf16, float* g, int64_t n, const AdamWParams& p,
                     int64_t step);
  // Sums of squares per block of kSumSquaresBlock elements (out has ceil(n / block) entries, in
  // double); sum_squares() adds them in order.
  void (*block_sum_squares)(double* out, const float* x, int64_t n);
  void (*scale_inplace)(float* x, int64_t n, float s);
};

// The table of an ISA level (cpu/isa.h); throws cpuft::Error if this CPU cannot run it.
const KernelTable& kernel_table(Isa isa);

// The table chosen once from kernel_isa().
const KernelTable& kernels();

}  // namespace cpuft
