// What this CPU (and its OS) can run, from CPUID and XCR0. The kernel ISA chosen from it is cpu/isa.h's.
#pragma once

#include <string>

namespace cpuft {

struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512vl = false;
  bool avx512dq = false;
  bool avx512_bf16 = false;
  bool avx512_vnni = false;
  bool avx512_fp16 = false;
  bool amx_tile = false;
  bool amx_bf16 = false;
  bool amx_int8 = false;
  // The OS enables the AMX tile state in XCR0 (Linux 5.16+): without it AMX cannot run even where
  // CPUID lists it.
  bool amx_os = false;
  std::string vendor;
  std::string brand;

  // True when our *_avx512.cc kernels can run (F + BW + VL + DQ).
  bool has_avx512_kernels() const { return avx512f && avx512bw && avx512vl && avx512dq; }
};

// Features of the CPU this process runs on (cached after the first call).
const CpuFeatures& cpu_features();

// Once per process: when the CPU lists AMX-TILE and AMX-BF16 and the OS enables the tile state, asks
// Linux for this process's AMX tile-data permission (arch_prctl ARCH_REQ_XCOMP_PERM, Linux 5.16+),
// which every thread needs before its first tile instruction. True when it is granted.
bool amx_tile_data_permitted();

// One line such as "AMD EPYC (avx2 fma avx512f avx512_bf16 avx512_vnni)".
std::string describe_cpu();

}  // namespace cpuft
