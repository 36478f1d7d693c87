// CPU features and the kernel ISA choice. The ISA is chosen once per process: the best the CPU
// supports, or what CPUFT_ISA=ref|avx2|avx512 forces (an error if the CPU cannot run it).
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

enum class Isa { ref, avx2, avx512 };

// The kernel ISA in use: CPUFT_ISA if set (throws cpuft::Error if unknown or unsupported), else the best.
Isa kernel_isa();
const char* isa_name(Isa isa);

// One line such as "AMD EPYC (avx2 fma avx512f avx512_bf16); kernels: avx512".
std::string describe_cpu();

}  // namespace cpuft
