// The ISA registry (cpu/isa.h): one choice of kernel ISA, one spelling, one CPU check.
#include "cpuft/cpu/isa.h"

#include <gtest/gtest.h>

#include <string>

#include "cpuft/util/error.h"

namespace cpuft {
namespace {

const Isa kLevels[] = {Isa::kRef, Isa::kAvx2, Isa::kAvx512, Isa::kAvx512Bf16, Isa::kAmx};

TEST(Isa, NamesAreTheCpuftIsaSpellings) {
  EXPECT_STREQ(isa_name(Isa::kRef), "ref");
  EXPECT_STREQ(isa_name(Isa::kAvx2), "avx2");
  EXPECT_STREQ(isa_name(Isa::kAvx512), "avx512");
  EXPECT_STREQ(isa_name(Isa::kAvx512Bf16), "avx512_bf16");
  EXPECT_STREQ(isa_name(Isa::kAmx), "amx");
}

// Each level includes the ones before it, so a supported level never follows an unsupported one.
TEST(Isa, LevelsAreOrderedAndTheBestIsTheHighestSupported) {
  EXPECT_TRUE(isa_supported(Isa::kRef));
  bool gap = false;
  for (Isa isa : kLevels) {
    if (!isa_supported(isa)) {
      gap = true;
      continue;
    }
    EXPECT_FALSE(gap) << isa_name(isa) << " supported above an unsupported level";
    EXPECT_GE(static_cast<int>(best_isa()), static_cast<int>(isa));
  }
  EXPECT_TRUE(isa_supported(best_isa()));
  EXPECT_TRUE(isa_supported(kernel_isa()));
}

TEST(Isa, PickReturnsTheBuildOfTheLevel) {
  for (Isa isa : kLevels) {
    if (!isa_supported(isa)) continue;
    // amx has no table of its own but the bf16 tile product's: the tables pass their avx512_bf16 build
    const std::string want = isa == Isa::kAmx ? "avx512_bf16" : isa_name(isa);
    EXPECT_EQ(isa_pick<std::string>(isa, "ref", "avx2", "avx512", "avx512_bf16"), want);
  }
}

// An unsupported level is one line naming the level and what the CPU lacks.
TEST(Isa, UnsupportedLevelIsAnErrorNamingWhatIsMissing) {
  int checked = 0;
  for (Isa isa : kLevels) {
    if (isa_supported(isa)) {
      EXPECT_NO_THROW(require_isa(isa));
      continue;
    }
    ++checked;
    try {
      isa_pick(isa, 0, 1, 2, 3);
      ADD_FAILURE() << isa_name(isa) << " picked on a CPU without it";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string("kernel ISA ") + isa_name(isa) + ": this CPU has no "), std::string::npos)
          << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  if (checked == 0) std::printf("[ SKIPPED  ] this CPU runs every level\n");
}

}  // namespace
}  // namespace cpuft
