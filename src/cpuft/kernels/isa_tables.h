// The per-ISA tables, defined in kernel_table.cc (ref), kernels_avx2.cc and kernels_avx512.cc.
// Only kernel_table.cc calls these (after checking that the CPU can run the ISA).
#pragma once

#include "cpuft/kernels/kernel_table.h"

namespace cpuft {

const KernelTable& ref_kernel_table();
const KernelTable& avx2_kernel_table();
const KernelTable& avx512_kernel_table();

}  // namespace cpuft
