// The kernel table of one Vec type: included only by kernels_avx2.cc and kernels_avx512.cc, which
// instantiate it for their own vector structs (so each ISA's code is compiled with its own flags and no
// symbol is shared between them).
#pragma once

#include "cpuft/kernels/adamw_vec.h"
#include "cpuft/kernels/dropout_vec.h"
#include "cpuft/kernels/embedding_vec.h"
#include "cpuft/kernels/bias_grad_vec.h"
#include "cpuft/kernels/gelu_vec.h"
#include "cpuft/kernels/kernel_table.h"
#include "cpuft/kernels/layernorm_vec.h"
#include "cpuft/kernels/softmax_vec.h"

namespace cpuft {

template <class V>
KernelTable make_kernel_table() {
  KernelTable t;
  t.name = V::kName;
  t.embedding_fwd = embedding_fwd_vec<V>;
  t.embedding_bwd = embedding_bwd_vec<V>;
  t.layernorm_fwd = layernorm_fwd_vec<V>;
  t.layernorm_bwd = layernorm_bwd_vec<V>;
  t.gelu_fwd = gelu_fwd_vec<V>;
  t.gelu_bwd = gelu_bwd_vec<V>;
  t.gelu_recompute = gelu_recompute_vec<V>;
  t.gelu_bwd_factored = gelu_bwd_factored_vec<V>;
  t.bias_grad = bias_grad_vec<V>;
  t.softmax_fwd = softmax_fwd_vec<V>;
  t.softmax_recompute_bwd = softmax_recompute_bwd_vec<V>;
  t.dropout_apply = dropout_apply_vec<V>;
  t.adamw_step = adamw_step_vec<V>;
  t.block_sum_squares = block_sum_squares_vec<V>;
  t.scale_inplace = scale_inplace_vec<V>;
  return t;
}

}  // namespace cpuft
