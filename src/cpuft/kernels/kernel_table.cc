// The reference table, and the table of an ISA level (cpu/isa.h): once per process from kernel_isa(), or
// per ISA for tests.
#include "cpuft/kernels/kernel_table.h"

#include "cpuft/kernels/isa_tables.h"
#include "cpuft/kernels/ref_kernels.h"

namespace cpuft {

const KernelTable& ref_kernel_table() {
  static const KernelTable table = [] {
    KernelTable t;
    t.name = "ref";
    t.embedding_fwd = ref::embedding_fwd;
    t.embedding_bwd = ref::embedding_bwd;
    t.layernorm_fwd = ref::layernorm_fwd;
    t.layernorm_bwd = ref::layernorm_bwd;
    t.gelu_fwd = ref::gelu_fwd;
    t.gelu_bwd = ref::gelu_bwd;
    t.gelu_recompute = ref::gelu_recompute;
    t.gelu_bwd_factored = ref::gelu_bwd_factored;
    t.bias_grad = ref::bias_grad;
    t.softmax_fwd = ref::softmax_fwd;
    t.softmax_recompute_bwd = ref::softmax_recompute_bwd;
    t.dropout_apply = ref::dropout_apply;
    t.adamw_step = ref::adamw_step;
    t.block_sum_squares = ref::block_sum_squares;
    t.scale_inplace = ref::scale_inplace;
    return t;
  }();
  return table;
}

const KernelTable& kernel_table(Isa isa) {
  // avx512_bf16 and amx: the avx512 kernels with their bf16 rounding by AVX512_BF16's conversion.
  return isa_pick(isa, &ref_kernel_table, &avx2_kernel_table, &avx512_kernel_table, &avx512_bf16_kernel_table)();
}

const KernelTable& kernels() {
  static const KernelTable& table = kernel_table(kernel_isa());
  return table;
}

}  // namespace cpuft
