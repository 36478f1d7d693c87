// Where bf16 matrix products run, and why AMX is or is not used: the one line cpuft doctor prints.
#include "cpuft/cpu/onednn_info.h"

#include <gtest/gtest.h>

#include <string>

#include "cpuft/cpu/cpu_features.h"

namespace cpuft {
namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A Sapphire Rapids node where everything is in place.
Bf16MatmulFacts sapphire_rapids() {
  Bf16MatmulFacts f;
  f.cpu_amx = f.os_amx = f.amx_permitted = f.cpu_avx512_bf16 = true;
  f.kernel_release = "6.1.0-18-amd64";
  f.onednn_version = "2.6.3";
  f.impl = "brg:avx512_core_amx_bf16";
  return f;
}

TEST(Bf16Matmul, AmxWhenOneDnnPicksIt) {
  const Bf16MatmulFacts f = sapphire_rapids();
  EXPECT_TRUE(bf16_matmul_uses_amx(f));
  EXPECT_EQ(explain_bf16_matmul(f), "matmul on AMX (oneDNN brg:avx512_core_amx_bf16)");
}

TEST(Bf16Matmul, AmxUnusedOnAnOldKernelSaysWhyAndWhatToDo) {
  Bf16MatmulFacts f = sapphire_rapids();
  f.os_amx = f.amx_permitted = false;
  f.kernel_release = "5.15.0-91-generic";
  f.impl = "brg:avx512_core_bf16";
  const std::string line = explain_bf16_matmul(f);
  EXPECT_FALSE(bf16_matmul_uses_amx(f));
  EXPECT_TRUE(has(line, "matmul on AVX512_BF16 (oneDNN brg:avx512_core_bf16)")) << line;
  EXPECT_TRUE(has(line, "AMX on this CPU is NOT used")) << line;
  EXPECT_TRUE(has(line, "Linux 5.15.0-91-generic does not enable the AMX tile state")) << line;
  EXPECT_TRUE(has(line, "5.16 or newer")) << line;
}

TEST(Bf16Matmul, AmxUnusedWhenLinuxRefusesThePermission) {
  Bf16MatmulFacts f = sapphire_rapids();
  f.amx_permitted = false;
  f.impl = "brg:avx512_core_bf16";
  const std::string line = explain_bf16_matmul(f);
  EXPECT_TRUE(has(line, "refused the tile-data permission (arch_prctl ARCH_REQ_XCOMP_PERM)")) << line;
}

TEST(Bf16Matmul, AmxUnusedUnderAUserCapNamesTheVariable) {
  Bf16MatmulFacts f = sapphire_rapids();
  f.max_isa_env = "AVX512_CORE_BF16";
  f.impl = "brg:avx512_core_bf16";
  const std::string line = explain_bf16_matmul(f);
  EXPECT_TRUE(has(line, "ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16 caps oneDNN; unset it")) << line;
  // A cap that still allows AMX is no reason.
  f.max_isa_env = "ALL";
  EXPECT_TRUE(has(explain_bf16_matmul(f), "did not choose it; use oneDNN 2.5 or newer")) << explain_bf16_matmul(f);
}

TEST(Bf16Matmul, EmulatedWithoutNativeBf16) {
  Bf16MatmulFacts f;  // an AVX2-only CPU
  f.onednn_version = "2.6.3";
  EXPECT_EQ(explain_bf16_matmul(f), "matmul emulated in f32: this CPU has no AVX512_BF16 or AMX (FP32 is as fast here)");
  f.cpu_avx512_bf16 = true;
  f.max_isa_env = "AVX2";
  const std::string line = explain_bf16_matmul(f);
  EXPECT_TRUE(has(line, "emulated in f32: oneDNN 2.6.3 builds no bf16 matmul here")) << line;
  EXPECT_TRUE(has(line, "ONEDNN_MAX_CPU_ISA=AVX2 caps oneDNN")) << line;
}

TEST(Bf16Matmul, AvxBf16WithoutAmxHasNoAmxRemark) {
  Bf16MatmulFacts f;  // Zen 4 / Zen 5
  f.cpu_avx512_bf16 = true;
  f.onednn_version = "2.6.3";
  f.impl = "brg:avx512_core_bf16";
  EXPECT_EQ(explain_bf16_matmul(f), "matmul on AVX512_BF16 (oneDNN brg:avx512_core_bf16)");
}

// oneDNN 2.4 and older dispatch AMX only when asked; 2.5 and newer by default.
TEST(Bf16Matmul, AmxOptInOnlyForOneDnnBefore25) {
  EXPECT_TRUE(onednn_needs_amx_opt_in(1, 8));
  EXPECT_TRUE(onednn_needs_amx_opt_in(2, 4));
  EXPECT_FALSE(onednn_needs_amx_opt_in(2, 5));
  EXPECT_FALSE(onednn_needs_amx_opt_in(2, 6));
  EXPECT_FALSE(onednn_needs_amx_opt_in(3, 0));
}

// On this machine: the facts agree with the CPU, and preparing oneDNN never changes its ISA where
// the CPU has no AMX (and never asks Linux for anything it cannot grant).
TEST(Bf16Matmul, FactsOfThisProcessMatchTheCpu) {
  const std::string isa_before = onednn_isa();
  const Bf16MatmulFacts f = bf16_matmul_facts();
  const CpuFeatures& c = cpu_features();
  EXPECT_EQ(f.cpu_amx, c.amx_tile && c.amx_bf16);
  EXPECT_EQ(f.cpu_avx512_bf16, c.avx512_bf16);
  if (!f.cpu_amx) {
    EXPECT_FALSE(f.amx_permitted);
    EXPECT_EQ(onednn_isa(), isa_before);
  }
  EXPECT_FALSE(f.onednn_version.empty());
  EXPECT_FALSE(f.kernel_release.empty());
}

}  // namespace
}  // namespace cpuft
