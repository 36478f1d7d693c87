// AVX2+FMA instantiation of the kernel templates.
#include "cpuft/kernels/isa_tables.h"
#include "cpuft/kernels/kernels_vec.h"
#include "cpuft/kernels/vec_avx2.h"

namespace cpuft {

const KernelTable& avx2_kernel_table() {
  static const KernelTable table = make_kernel_table<VecAvx2>();
  return table;
}

}  // namespace cpuft
