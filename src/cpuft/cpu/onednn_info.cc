#include "cpuft/cpu/onednn_info.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <dnnl.hpp>

#include "cpuft/cpu/features.h"

namespace cpuft {
namespace {

// Linux's arch_prctl request for an extended-state permission, and the AMX tile-data component
// (asm/prctl.h values; spelled out because older kernel headers do not have them).
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureXtiledata = 18;

const char* isa_text(dnnl::cpu_isa isa) {
  using dnnl::cpu_isa;
  switch (isa) {
    case cpu_isa::sse41: return "sse41";
    case cpu_isa::avx: return "avx";
    case cpu_isa::avx2: return "avx2";
    case cpu_isa::avx512_mic: return "avx512_mic";
    case cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
    case cpu_isa::avx512_core: return "avx512_core";
    case cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case cpu_isa::avx512_core_amx: return "avx512_core_amx";
    case cpu_isa::avx2_vnni: return "avx2_vnni";
    case cpu_isa::all: return "all";
  }
  return "unknown";
}

}  // namespace

bool onednn_prepare() {
  static const bool amx = [] {
    const CpuFeatures& f = cpu_features();
    if (!f.amx_tile || !f.amx_bf16) return false;
    if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) return false;
    try {
      dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx512_core_amx);
    } catch (const dnnl::error&) {
      return false;  // oneDNN already fixed its ISA (a primitive was built before us)
    }
    return true;
  }();
  return amx;
}

std::string onednn_version() {
  const dnnl_version_t* v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

std::string onednn_isa() {
  onednn_prepare();
  return isa_text(dnnl::get_effective_cpu_isa());
}

std::string describe_onednn() { return "oneDNN " + onednn_version() + ", isa " + onednn_isa(); }

}  // namespace cpuft
