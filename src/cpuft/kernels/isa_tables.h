// The per-ISA builds of kernels/' two tables: our kernels (KernelTable: ref in kernel_table.cc,
// kernels_avx2.cc, kernels_avx512.cc: avx512 and avx512_bf16) and the quantization kernels (QuantKernels:
// quantize_ref.cc, quantize_avx2.cc, quantize_avx512.cc). Only kernel_table.cc and quantize.cc call these, through
// isa_pick (cpu/isa.h), which checks that the CPU can run the ISA.
#pragma once

#include "cpuft/kernels/kernel_table.h"
#include "cpuft/kernels/quantize.h"

namespace cpuft {

const KernelTable& ref_kernel_table();
const KernelTable& avx2_kernel_table();
const KernelTable& avx512_kernel_table();
const KernelTable& avx512_bf16_kernel_table();

const QuantKernels& ref_quant_kernels();
const QuantKernels& avx2_quant_kernels();
const QuantKernels& avx512_quant_kernels();

}  // namespace cpuft
