#include "cpuft/cpu/cpu_features.h"

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

namespace cpuft {
namespace {

// XCR0: the register states the OS saves and restores (0 when the OS does not use XSAVE).
unsigned xcr0() {
  unsigned a, b, c, d;
  __cpuid(1, a, b, c, d);
  if (!(c & (1u << 27))) return 0;  // OSXSAVE
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return lo;
}

// Linux's arch_prctl requests for extended-state permissions, and the AMX tile-data component
// (asm/prctl.h values; spelled out because older kernel headers do not have them).
constexpr int kArchGetXcompPerm = 0x1022;
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureXtiledata = 18;

bool request_tile_data() {
  unsigned long mask = 0;
  if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &mask) != 0) return false;
  if (mask & (1ul << kXfeatureXtiledata)) return true;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) return false;
  mask = 0;
  return syscall(SYS_arch_prctl, kArchGetXcompPerm, &mask) == 0 && (mask & (1ul << kXfeatureXtiledata));
}

bool os_saves_avx512_state() {
  return (xcr0() & 0xe6) == 0xe6;  // SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM
}

CpuFeatures detect() {
  CpuFeatures f;
  unsigned a, b, c, d;
  char vendor[13] = {0};
  __cpuid(0, a, b, c, d);
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  f.vendor = vendor;
  unsigned max_leaf = a;
  __cpuid(1, a, b, c, d);
  f.fma = c & (1u << 12);
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    f.avx2 = b & (1u << 5);
    bool zmm = os_saves_avx512_state();
    f.avx512f = zmm && (b & (1u << 16));
    f.avx512dq = zmm && (b & (1u << 17));
    f.avx512bw = zmm && (b & (1u << 30));
    f.avx512vl = zmm && (b & (1u << 31));
    f.avx512_vnni = zmm && (c & (1u << 11));
    f.amx_bf16 = d & (1u << 22);
    f.amx_int8 = d & (1u << 25);
    f.avx512_fp16 = zmm && (d & (1u << 23));
    f.amx_tile = d & (1u << 24);
    f.amx_os = f.amx_tile && (xcr0() & 0x60000u) == 0x60000u;  // XTILECFG, XTILEDATA
    unsigned a1, b1, c1, d1;
    __cpuid_count(7, 1, a1, b1, c1, d1);
    f.avx512_bf16 = zmm && (a1 & (1u << 5));
  }
  char brand[49] = {0};
  __cpuid(0x80000000, a, b, c, d);
  if (a >= 0x80000004) {
    for (unsigned i = 0; i < 3; ++i) {
      __cpuid(0x80000002 + i, a, b, c, d);
      std::memcpy(brand + 16 * i, &a, 4);
      std::memcpy(brand + 16 * i + 4, &b, 4);
      std::memcpy(brand + 16 * i + 8, &c, 4);
      std::memcpy(brand + 16 * i + 12, &d, 4);
    }
  }
  f.brand = brand;
  while (!f.brand.empty() && f.brand.back() == ' ') f.brand.pop_back();
  return f;
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = detect();
  return f;
}

std::string describe_cpu() {
  const CpuFeatures& f = cpu_features();
  std::string s = f.brand.empty() ? f.vendor : f.brand;
  s += " (";
  const char* sep = "";
  auto add = [&](bool on, const char* name) {
    if (on) {
      s += sep;
      s += name;
      sep = " ";
    }
  };
  add(f.avx2, "avx2");
  add(f.fma, "fma");
  add(f.avx512f, "avx512f");
  add(f.avx512_bf16, "avx512_bf16");
  add(f.avx512_vnni, "avx512_vnni");
  add(f.avx512_fp16, "avx512_fp16");
  add(f.amx_tile, "amx_tile");
  add(f.amx_bf16, "amx_bf16");
  add(f.amx_int8, "amx_int8");
  s += ")";
  return s;
}

bool amx_tile_data_permitted() {
  static const bool permitted = [] {
    const CpuFeatures& f = cpu_features();
    return f.amx_tile && f.amx_bf16 && f.amx_os && request_tile_data();
  }();
  return permitted;
}

}  // namespace cpuft
