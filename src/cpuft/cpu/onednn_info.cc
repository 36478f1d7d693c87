#include "cpuft/cpu/onednn_info.h"

#include <sys/utsname.h>

#include <cstdlib>

#include <dnnl.hpp>

#include "cpuft/cpu/cpu_features.h"

namespace cpuft {
namespace {

// ONEDNN_MAX_CPU_ISA (or its older name DNNL_MAX_CPU_ISA), "" when unset.
std::string max_isa_env() {
  for (const char* name : {"ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"})
    if (const char* v = std::getenv(name); v && *v) return v;
  return "";
}

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

bool onednn_needs_amx_opt_in(int major, int minor) { return major < 2 || (major == 2 && minor < 5); }

bool onednn_prepare() {
  static const bool permitted = [] {
    if (!amx_tile_data_permitted()) return false;
    const dnnl_version_t* v = dnnl_version();
    if (onednn_needs_amx_opt_in(v->major, v->minor) && max_isa_env().empty()) {
      try {
        dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx512_core_amx);
      } catch (const dnnl::error&) {
        // oneDNN already fixed its ISA (a primitive was built before us): it stays as it is.
      }
    }
    return true;
  }();
  return permitted;
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

Bf16MatmulFacts bf16_matmul_facts() {
  const CpuFeatures& c = cpu_features();
  Bf16MatmulFacts f;
  f.cpu_amx = c.amx_tile && c.amx_bf16;
  f.os_amx = c.amx_os;
  f.amx_permitted = onednn_prepare();
  f.cpu_avx512_bf16 = c.avx512_bf16;
  f.max_isa_env = max_isa_env();
  struct utsname u;
  if (uname(&u) == 0) f.kernel_release = u.release;
  f.onednn_version = onednn_version();
  return f;
}

bool bf16_matmul_uses_amx(const Bf16MatmulFacts& f) { return f.impl.find("amx") != std::string::npos; }

std::string explain_bf16_matmul(const Bf16MatmulFacts& f) {
  const std::string cap = f.max_isa_env.empty() || f.max_isa_env == "ALL" || f.max_isa_env == "AVX512_CORE_AMX"
                              ? ""
                              : "ONEDNN_MAX_CPU_ISA=" + f.max_isa_env + " caps oneDNN; unset it";
  std::string line;
  if (f.impl.empty()) {
    if (!f.cpu_amx && !f.cpu_avx512_bf16) return "matmul emulated in f32: this CPU has no AVX512_BF16 or AMX (FP32 is as fast here)";
    line = "matmul emulated in f32: oneDNN " + f.onednn_version + " builds no bf16 matmul here";
    if (!cap.empty()) line += " (" + cap + ")";
  } else if (bf16_matmul_uses_amx(f)) {
    return "matmul on AMX (oneDNN " + f.impl + ")";
  } else {
    const bool avx512 = f.impl.find("avx512_core_bf16") != std::string::npos;
    line = std::string("matmul on ") + (avx512 ? "AVX512_BF16" : "native bf16") + " (oneDNN " + f.impl + ")";
  }
  if (!f.cpu_amx) return line;
  line += "; AMX on this CPU is NOT used: ";
  const std::string kernel = "Linux " + (f.kernel_release.empty() ? std::string("(unknown)") : f.kernel_release);
  if (!f.os_amx)
    line += kernel + " does not enable the AMX tile state; run Linux 5.16 or newer (and a hypervisor that passes AMX through)";
  else if (!f.amx_permitted)
    line += kernel + " refused the tile-data permission (arch_prctl ARCH_REQ_XCOMP_PERM); run Linux 5.16 or newer, or lift the seccomp/container limit";
  else if (!cap.empty())
    line += cap;
  else
    line += "oneDNN " + f.onednn_version + " did not choose it; use oneDNN 2.5 or newer";
  return line;
}

}  // namespace cpuft
