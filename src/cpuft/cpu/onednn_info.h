// What oneDNN is and what it will use on this CPU. oneDNN releases before 2.7 do not dispatch AMX
// unless asked, and Linux needs a per-process permission for AMX tile data: oneDNN users call
// onednn_prepare() before building their first primitive.
#pragma once

#include <string>

namespace cpuft {

// Once per process: when the CPU has AMX (tile + bf16), asks Linux for the tile-data permission
// (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) and, if granted, raises oneDNN's maximum ISA
// to avx512_core_amx. Returns true when AMX was enabled. Safe to call any number of times.
bool onednn_prepare();

// "2.6.3"
std::string onednn_version();
// The ISA oneDNN dispatches, e.g. "avx2", "avx512_core_bf16", "avx512_core_amx".
std::string onednn_isa();
// "oneDNN 2.6.3, isa avx2"
std::string describe_onednn();

}  // namespace cpuft
