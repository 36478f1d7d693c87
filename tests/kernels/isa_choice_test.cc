// Every per-ISA table of kernels/ runs the one ISA choice (cpu/isa.h), so that `make test-isa`
// (CPUFT_ISA=ref, avx2, avx512, avx512_bf16, amx) really switches each of them.
#include <gtest/gtest.h>

#include "cpuft/cpu/isa.h"
#include "cpuft/kernels/gemm.h"
#include "cpuft/kernels/kernel_table.h"
#include "cpuft/kernels/quantize.h"

namespace cpuft {
namespace {

// Our own kernels use no AMX instruction: amx runs the avx512_bf16 build (the avx512 kernels with their
// bf16 rounding by AVX512_BF16's conversion). The quantization kernels use no bf16 instruction either:
// avx512_bf16 and amx run their avx512 build.
const char* own_kernels_build(Isa isa) { return isa >= Isa::kAvx512Bf16 ? "avx512_bf16" : isa_name(isa); }
const char* quantize_build(Isa isa) { return isa >= Isa::kAvx512Bf16 ? "avx512" : isa_name(isa); }

TEST(IsaChoice, KernelTableIsTheKernelIsas) {
  EXPECT_STREQ(kernels().name, own_kernels_build(kernel_isa()));
  EXPECT_EQ(&kernels(), &kernel_table(kernel_isa()));
}

TEST(IsaChoice, QuantizeKernelsAreTheKernelIsas) {
  EXPECT_STREQ(quant_kernels(kernel_isa()).name, quantize_build(kernel_isa()));
}

// The bf16 tile product uses bf16 dot products (vdpbf16ps, or AMX's tdpbf16ps) exactly at the
// avx512_bf16 and amx levels.
TEST(IsaChoice, TileProductIsNativeBf16OnlyAtTheBf16Levels) {
  EXPECT_EQ(tile_matmul_bf16_native(), kernel_isa() >= Isa::kAvx512Bf16);
}

}  // namespace
}  // namespace cpuft
