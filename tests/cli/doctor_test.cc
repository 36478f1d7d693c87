// cpuft doctor: the machine report a user (or a script, with --json) relies on.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "cpuft/cpu/isa.h"
#include "cpuft/util/huge_pages.h"

namespace {

// Runs `ENV cpuft ARGS REDIRECT` and returns what it writes to the pipe (its standard output unless
// REDIRECT says otherwise); *rc gets the exit status.
std::string run_cpuft_env(const std::string& env, const std::string& args, int* rc,
                          const std::string& redirect = "2>/dev/null") {
  std::string out;
  FILE* p = ::popen((env + " " + std::string(CPUFT_BINARY) + " " + args + " " + redirect).c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  *rc = WEXITSTATUS(::pclose(p));
  return out;
}

std::string run_cpuft(const std::string& args, int* rc) { return run_cpuft_env("", args, rc); }

}  // namespace

TEST(Doctor, JsonReportsCpuOneDnnTopologyAndPlan) {
  int rc = -1;
  nlohmann::json j = nlohmann::json::parse(run_cpuft("doctor --json --ranks-per-node 2", &rc));
  EXPECT_EQ(rc, 0);
  for (const char* key : {"avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8"})
    EXPECT_TRUE(j["cpu"].contains(key)) << key;
  EXPECT_TRUE(j["onednn"]["version"].is_string());
  EXPECT_TRUE(j["onednn"]["bf16_matmul_native"].is_boolean());
  EXPECT_EQ(j["bf16_matmul"]["impl"].get<std::string>().empty(), !j["onednn"]["bf16_matmul_native"].get<bool>());
  EXPECT_EQ(j["bf16_matmul"]["summary"].get<std::string>().rfind("matmul ", 0), 0u) << j["bf16_matmul"];
  EXPECT_TRUE(j["amx"]["permitted"].is_boolean());
  EXPECT_GE(j["topology"]["physical_cores"].get<int>(), 1);
  EXPECT_EQ(j["plan"]["ranks_per_node"].get<int>(), 2);
  EXPECT_FALSE(j["plan"]["recommended"].get<bool>());
  EXPECT_EQ(j["huge_pages"]["mode"].get<std::string>(), cpuft::huge_page_mode());
  EXPECT_EQ(j["huge_pages"]["summary"].get<std::string>().rfind("transparent huge pages: ", 0), 0u) << j["huge_pages"];
}

TEST(Doctor, TextReportNamesTheKernelIsaAndThePlan) {
  int rc = -1;
  std::string out = run_cpuft("doctor", &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_NE(out.find("kernels:"), std::string::npos) << out;
  EXPECT_NE(out.find("oneDNN"), std::string::npos) << out;
  EXPECT_NE(out.find("plan:"), std::string::npos) << out;
  EXPECT_NE(out.find("\nbf16:     matmul "), std::string::npos) << out;
  EXPECT_NE(out.find("\nmemory:   transparent huge pages: "), std::string::npos) << out;
}

// The user's ONEDNN_MAX_CPU_ISA is obeyed (cpuft never raises oneDNN's ISA over it).
TEST(Doctor, HonoursTheUsersOneDnnIsaCap) {
  int rc = -1;
  nlohmann::json j = nlohmann::json::parse(run_cpuft_env("ONEDNN_MAX_CPU_ISA=SSE41", "doctor --json", &rc));
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(j["onednn"]["isa"], "sse41");
  EXPECT_FALSE(j["bf16_matmul"]["amx"].get<bool>());
}

TEST(Doctor, BadFlagIsAnError) {
  int rc = 0;
  run_cpuft("doctor --ranks-per-node zero", &rc);
  EXPECT_EQ(rc, 1);
}

// CPUFT_ISA takes the registry's names (cpu/isa.h) and the doctor names the level in use.
TEST(Doctor, CpuftIsaForcesTheKernelIsa) {
  int rc = -1;
  std::string out = run_cpuft_env("CPUFT_ISA=ref", "doctor", &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_NE(out.find("\nkernels:  ref "), std::string::npos) << out;
}

// The emulated test build (CMake option CPUFT_EMULATE_AVX512) says that its avx512 levels are emulated,
// in the text and in the JSON; a native build says nothing of the kind at any level.
TEST(Doctor, SaysWhenTheKernelsAreEmulated) {
  for (cpuft::Isa isa : {cpuft::Isa::kRef, cpuft::Isa::kAvx2, cpuft::Isa::kAvx512, cpuft::Isa::kAvx512Bf16}) {
    if (!cpuft::isa_supported(isa)) continue;
    const std::string env = std::string("CPUFT_ISA=") + cpuft::isa_name(isa);
#ifdef CPUFT_EMULATED_AVX512
    const bool emulated = isa == cpuft::Isa::kAvx512 || isa == cpuft::Isa::kAvx512Bf16;
#else
    const bool emulated = false;
#endif
    int rc = -1;
    const std::string out = run_cpuft_env(env, "doctor", &rc);
    EXPECT_EQ(rc, 0) << env;
    EXPECT_EQ(out.find(" emulated on AVX2: a test build") != std::string::npos, emulated) << env << "\n" << out;
    nlohmann::json j = nlohmann::json::parse(run_cpuft_env(env, "doctor --json", &rc));
    EXPECT_EQ(rc, 0) << env;
    EXPECT_EQ(j["kernels_emulated"].get<bool>(), emulated) << env;
  }
}

// An unknown name is one line naming the variable, the value and the names it takes; exit 1.
TEST(Doctor, UnknownCpuftIsaIsAnError) {
  int rc = 0;
  const std::string err = run_cpuft_env("CPUFT_ISA=sse9", "doctor", &rc, "2>&1 >/dev/null");
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("CPUFT_ISA: found 'sse9', expected one of ref, avx2, avx512, avx512_bf16, amx"), std::string::npos)
      << err;
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
}
