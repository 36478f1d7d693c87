// Choosing the kernel table: once per process from kernel_isa(), or per ISA for tests.
#include "cpuft/kernels/kernel_table.h"

#include "cpuft/kernels/isa_tables.h"
#include "cpuft/kernels/ref_kernels.h"
#include "cpuft/util/error.h"

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
    t.bias_grad = ref::bias_grad;
    t.softmax_fwd = ref::softmax_fwd;
    t.softmax_bwd = ref::softmax_bwd;
    t.dropout_apply = ref::dropout_apply;
    t.adamw_step = ref::adamw_step;
    t.block_sum_squares = ref::block_sum_squares;
    t.scale_inplace = ref::scale_inplace;
    t.exp_f32 = ref::exp_f32;
    t.erf_f32 = ref::erf_f32;
    return t;
  }();
  return table;
}

const KernelTable& kernel_table(Isa isa) {
  const CpuFeatures& f = cpu_features();
  switch (isa) {
    case Isa::ref:
      return ref_kernel_table();
    case Isa::avx2:
      if (!(f.avx2 && f.fma)) fail("kernels: avx2 requested but this CPU has no AVX2+FMA");
      return avx2_kernel_table();
    case Isa::avx512:
      if (!f.has_avx512_kernels()) {
        fail("kernels: avx512 requested but this CPU lacks AVX-512 F/BW/VL/DQ");
      }
      return avx512_kernel_table();
  }
  fail_internal("kernels: unknown ISA ", static_cast<int>(isa));
}

const KernelTable& kernels() {
  static const KernelTable& table = kernel_table(kernel_isa());
  return table;
}

}  // namespace cpuft
