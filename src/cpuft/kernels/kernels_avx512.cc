// AVX-512 (F, BW, VL, DQ) instantiation of the kernel templates; this file alone is compiled
// with AVX-512 flags and is only entered after kernel_table() has checked the CPU.
// GCC 12's own avx512fintrin.h trips -W(maybe-)uninitialized on its _mm512_undefined_* helpers.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "cpuft/kernels/isa_tables.h"
#include "cpuft/kernels/kernels_vec.h"
#include "cpuft/kernels/vec_avx512.h"

namespace cpuft {

const KernelTable& avx512_kernel_table() {
  static const KernelTable table = make_kernel_table<VecAvx512>();
  return table;
}

}  // namespace cpuft
