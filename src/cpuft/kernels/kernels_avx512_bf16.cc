// AVX-512 with AVX512_BF16 instantiation of the kernel templates: the avx512 kernels with their bf16
// rounding by the AVX512_BF16 conversion (vec_avx512_bf16.h), the same bits. This file alone is compiled
// with the AVX-512 flags (which include AVX512_BF16) and is only entered after kernel_table() has checked
// the CPU.
// GCC 12's own avx512fintrin.h trips -W(maybe-)uninitialized on its _mm512_undefined_* helpers.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "cpuft/kernels/isa_tables.h"
#include "cpuft/kernels/kernels_vec.h"
#include "cpuft/kernels/vec_avx512_bf16.h"

namespace cpuft {

const KernelTable& avx512_bf16_kernel_table() {
  static const KernelTable table = make_kernel_table<VecAvx512Bf16>();
  return table;
}

}  // namespace cpuft
