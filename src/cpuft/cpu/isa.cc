#include "cpuft/cpu/isa.h"

#include <cstdlib>
#include <string>

#include "cpuft/cpu/cpu_features.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {
namespace {

constexpr Isa kLevels[] = {Isa::kRef, Isa::kAvx2, Isa::kAvx512, Isa::kAvx512Bf16, Isa::kAmx};

// What this CPU lacks for `isa`, nullptr when it has everything.
const char* missing(Isa isa) {
  const CpuFeatures& f = cpu_features();
#ifdef CPUFT_EMULATED_AVX512
  // The emulated test build (CMake option CPUFT_EMULATE_AVX512): the avx512 builds run on AVX2.
  if (isa == Isa::kAvx512 || isa == Isa::kAvx512Bf16) return missing(Isa::kAvx2);
#endif
  switch (isa) {
    case Isa::kRef: return nullptr;
    case Isa::kAvx2: return f.avx2 && f.fma ? nullptr : "AVX2+FMA";
    case Isa::kAvx512: return f.has_avx512_kernels() ? nullptr : "AVX-512 (F, BW, VL, DQ)";
    case Isa::kAvx512Bf16:
      if (!f.has_avx512_kernels()) return "AVX-512 (F, BW, VL, DQ)";
      return f.avx512_bf16 ? nullptr : "AVX512_BF16";
    case Isa::kAmx:
      if (!f.has_avx512_kernels()) return "AVX-512 (F, BW, VL, DQ)";
      if (!f.avx512_bf16) return "AVX512_BF16";
      if (!f.amx_tile || !f.amx_bf16) return "AMX-BF16";
      if (!f.amx_os) return "AMX tile state enabled by the OS (Linux 5.16 or newer)";
      return amx_tile_data_permitted() ? nullptr : "AMX tile-data permission from Linux (arch_prctl refused)";
  }
  return "?";
}

Isa choose_isa() {
  const char* env = std::getenv("CPUFT_ISA");
  if (env == nullptr || *env == '\0') return best_isa();
  const std::string want = env;
  for (Isa isa : kLevels) {
    if (want != isa_name(isa)) continue;
    if (const char* lack = missing(isa)) fail("CPUFT_ISA=", text_preview(want), ": this CPU has no ", lack);
    return isa;
  }
  fail("CPUFT_ISA: found '", text_preview(want), "', expected one of ref, avx2, avx512, avx512_bf16, amx");
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kRef: return "ref";
    case Isa::kAvx2: return "avx2";
    case Isa::kAvx512: return "avx512";
    case Isa::kAvx512Bf16: return "avx512_bf16";
    case Isa::kAmx: return "amx";
  }
  return "?";
}

bool isa_supported(Isa isa) { return missing(isa) == nullptr; }

bool isa_emulated(Isa isa) {
#ifdef CPUFT_EMULATED_AVX512
  return isa == Isa::kAvx512 || isa == Isa::kAvx512Bf16;
#else
  (void)isa;
  return false;
#endif
}

Isa best_isa() {
  Isa best = Isa::kRef;
  for (Isa isa : kLevels)
    if (isa_supported(isa)) best = isa;
  return best;
}

Isa kernel_isa() {
  static const Isa isa = choose_isa();
  return isa;
}

void require_isa(Isa isa) {
  if (const char* lack = missing(isa)) fail("kernel ISA ", isa_name(isa), ": this CPU has no ", lack);
}

}  // namespace cpuft
