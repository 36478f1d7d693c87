// cpuft's own kernels (everything except the matrix products in gemm.h). Include this one header.
//
// Conventions, shared by every kernel declared here:
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
//   process from kernel_isa() (CPUFT_ISA=ref|avx2|avx512 forces); see kernel_table.h.
//
// Adding a kernel: declare it in <op>.h (outputs first, shapes in comments); write the plain
// formula in <op>_ref.cc (namespace ref, declared in ref_kernels.h); write the vector version
// ONCE in <op>_vec.h as a template over the Vec interface (vec_avx2.h / vec_avx512.h: load,
// store, partial tail loads, fma, exp, erf, reductions, bf16 stores); add a pointer to
// KernelTable and fill it in kernel_table.cc (ref) and kernels_vec.h (both vector ISAs); make
// the public function in <op>.cc call kernels().<op>; test vector vs ref on tail widths
// (tests/kernels/, IsaTest) and the gradient against finite differences.
#pragma once

#include "cpuft/kernels/adamw.h"
#include "cpuft/kernels/cross_entropy.h"
#include "cpuft/kernels/dropout.h"
#include "cpuft/kernels/embedding.h"
#include "cpuft/kernels/gelu.h"
#include "cpuft/kernels/layernorm.h"
#include "cpuft/kernels/softmax.h"
