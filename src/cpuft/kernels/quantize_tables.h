// The per-ISA quantization kernels, defined in quantize_ref.cc, quantize_avx2.cc and
// quantize_avx512.cc; only quantize.cc calls these (after checking that the CPU can run the ISA).
#pragma once

#include "cpuft/kernels/quantize.h"

namespace cpuft {

const QuantKernels& ref_quant_kernels();
const QuantKernels& avx2_quant_kernels();
const QuantKernels& avx512_quant_kernels();

}  // namespace cpuft
