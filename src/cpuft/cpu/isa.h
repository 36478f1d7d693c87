// The ISA registry: which of cpuft's own kernel builds this process runs, chosen once from the CPU and
// CPUFT_ISA. Every per-ISA table (kernels/kernel_table, kernels/quantize, the bf16 array conversions in
// tensor/bf16, the bf16 tile product in kernels/gemm_tile) asks kernel_isa() and picks its build with
// isa_pick(), so one name selects the same level everywhere and the CPU is checked in one place.
#pragma once

namespace cpuft {

// The levels, each including the ones before it:
//   ref          plain C++, any x86-64 CPU;
//   avx2         AVX2 + FMA (the *_avx2.cc builds);
//   avx512       AVX-512 F/BW/VL/DQ (the *_avx512.cc builds), bf16 rounded with integer instructions;
//   avx512_bf16  avx512 plus the AVX512_BF16 instructions (vcvtne2ps2bf16, vdpbf16ps);
//   amx          avx512_bf16 plus AMX-TILE and AMX-BF16 (tdpbf16ps), enabled by the OS and permitted to
//                this process (Linux 5.16+).
enum class Isa { kRef, kAvx2, kAvx512, kAvx512Bf16, kAmx };

// "ref", "avx2", "avx512", "avx512_bf16", "amx": the names CPUFT_ISA takes.
const char* isa_name(Isa isa);

// True when this CPU (and its OS) can run `isa`.
bool isa_supported(Isa isa);

// True when this build runs `isa`'s kernels with their intrinsics emulated on AVX2: the avx512 and
// avx512_bf16 levels of the emulated test build (CMake option CPUFT_EMULATE_AVX512), whose results are
// the instructions' and whose speed is not.
bool isa_emulated(Isa isa);

// The best level this CPU runs.
Isa best_isa();

// The level in use: CPUFT_ISA if set (throws cpuft::Error if unknown or unsupported), else best_isa().
Isa kernel_isa();

// Throws cpuft::Error ("kernel ISA avx512: this CPU has no AVX-512 (F, BW, VL, DQ)") unless `isa` is
// supported.
void require_isa(Isa isa);

// The build of `isa` among one per level (a table without a build of its own for a level passes the one
// below it again); checks the CPU first (require_isa). Only the bf16 tile product (kernels/gemm_tile)
// has an AMX build: every table runs its avx512_bf16 build at the amx level.
template <typename T>
T isa_pick(Isa isa, T ref, T avx2, T avx512, T avx512_bf16) {
  require_isa(isa);
  switch (isa) {
    case Isa::kRef: return ref;
    case Isa::kAvx2: return avx2;
    case Isa::kAvx512: return avx512;
    case Isa::kAvx512Bf16:
    case Isa::kAmx: return avx512_bf16;
  }
  return ref;
}

}  // namespace cpuft
