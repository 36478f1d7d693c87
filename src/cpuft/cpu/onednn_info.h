// What oneDNN is, what it will use on this CPU, and why AMX is or is not among it.
//
// AMX and oneDNN (from oneDNN's own sources and its dispatcher-control documentation):
// - oneDNN 2.4 and older left AMX out of their default ISA ("initial support"): it dispatched AMX
//   only after an opt-in (dnnl::set_max_cpu_isa(avx512_core_amx) or ONEDNN_MAX_CPU_ISA=AVX512_CORE_AMX).
// - From oneDNN 2.5 on (Debian 12 ships 2.6.3) the default ISA "ALL" includes AMX: bf16 matmuls run
//   on AMX (implementation "brg:avx512_core_amx_bf16") without any opt-in, and oneDNN itself asks
//   Linux for the tile-data permission (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) the first
//   time it checks for AMX. A cap set by the user (ONEDNN_MAX_CPU_ISA below AVX512_CORE_AMX) keeps
//   it off.
// - Linux must support AMX (5.16+: the tile state is enabled in XCR0 and the permission can be
//   granted); on older kernels oneDNN falls back to avx512_core_bf16.
// oneDNN users call onednn_prepare() before building their first primitive.
#pragma once

#include <string>

namespace cpuft {

// Once per process: when the CPU has AMX, asks Linux for the tile-data permission, and with a
// oneDNN older than 2.5 (no AMX by default) raises oneDNN's maximum ISA to avx512_core_amx unless
// the user set ONEDNN_MAX_CPU_ISA. Returns true when Linux granted the permission. Safe to call any
// number of times.
bool onednn_prepare();

// True for oneDNN releases that dispatch AMX only after an opt-in (before 2.5).
bool onednn_needs_amx_opt_in(int major, int minor);

// "2.6.3"
std::string onednn_version();
// The ISA oneDNN dispatches, e.g. "avx2", "avx512_core_bf16", "avx512_core_amx".
std::string onednn_isa();
// "oneDNN 2.6.3, isa avx2"
std::string describe_onednn();

// What decides whether bf16 matrix products run on AMX.
struct Bf16MatmulFacts {
  bool cpu_amx = false;          // CPUID lists AMX-TILE and AMX-BF16
  bool os_amx = false;           // XCR0 enables the tile state (the kernel supports AMX)
  bool amx_permitted = false;    // Linux granted this process the tile-data permission
  bool cpu_avx512_bf16 = false;  // CPUID lists AVX512_BF16
  std::string max_isa_env;       // ONEDNN_MAX_CPU_ISA, "" when unset
  std::string kernel_release;    // uname -r
  std::string onednn_version;    // "2.6.3"
  std::string impl;              // oneDNN's implementation of a bf16 matmul, "" when emulated
};

// The facts of this process (calls onednn_prepare()); `impl` is left for the caller to fill in
// (kernels/gemm builds the primitive).
Bf16MatmulFacts bf16_matmul_facts();

// One line: which ISA bf16 matrix products run on, and, where the CPU has AMX that is not used,
// why and what to do. E.g. "matmul on AMX (oneDNN brg:avx512_core_amx_bf16)", "matmul on
// AVX512_BF16 (oneDNN brg:avx512_core_bf16)", "matmul emulated in f32: this CPU has no AVX512_BF16
// or AMX ...", or "matmul on AVX512_BF16 (...); AMX on this CPU is NOT used: <why>; <what to do>".
std::string explain_bf16_matmul(const Bf16MatmulFacts& f);

// True when the facts say bf16 products run on AMX.
bool bf16_matmul_uses_amx(const Bf16MatmulFacts& f);

}  // namespace cpuft
