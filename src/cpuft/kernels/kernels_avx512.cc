// AVX-512 (F, BW, VL, DQ) instantiations of the kernel templates: the avx512 table, and the avx512_bf16
// table (the same kernels with their bf16 rounding by AVX512_BF16's conversion, vec_avx512_bf16.h; run at
// the avx512_bf16 and amx levels). This file alone is compiled with the AVX-512 flags (which include
// AVX512_BF16), and each table is only entered after kernel_table() has checked the CPU for its level.
// GCC 12's own avx512fintrin.h trips -W(maybe-)uninitialized on its _mm512_undefined_* helpers.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "cpuft/kernels/isa_tables.h"
#include "cpuft/kernels/kernels_vec.h"
#include "cpuft/kernels/vec_avx512.h"
#include "cpuft/kernels/vec_avx512_bf16.h"

namespace cpuft {

const KernelTable& avx512_kernel_table() {
  static const KernelTable table = make_kernel_table<VecAvx512>();
  return table;
}

const KernelTable& avx512_bf16_kernel_table() {
  static const KernelTable table = make_kernel_table<VecAvx512Bf16>();
  return table;
}

}  // namespace cpuft
