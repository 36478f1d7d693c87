#include "cpuft/util/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace cpuft {
namespace {

// The VmFlags of the mapping that holds address p (/proc/self/smaps), or "" when none is found.
std::string vm_flags_at(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

bool kernel_has_thp() { return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good(); }

// The large buffers' mappings carry the huge-page hint (smaps: VmFlags "hg"), hold zeros and their
// size; a small buffer is allocated as usual.
TEST(HugePages, LargeBuffersAreAdvisedBeforeTheirFirstWrite) {
  if (!kernel_has_thp()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  std::vector<float> big = {1.f, 2.f};
  assign_zeros_on_huge_pages(big, size_t{16} << 20);  // 64 MiB
  ASSERT_EQ(big.size(), size_t{16} << 20);
  EXPECT_EQ(big.front(), 0.f);
  EXPECT_EQ(big.back(), 0.f);
  EXPECT_NE(vm_flags_at(big.data() + big.size() / 2).find(" hg"), std::string::npos) << vm_flags_at(big.data());
  std::vector<uint16_t> small;
  assign_zeros_on_huge_pages(small, 1000);
  EXPECT_EQ(small.size(), 1000u);
  EXPECT_FALSE(advise_huge_pages(small.data(), small.size() * sizeof(uint16_t)));
  EXPECT_FALSE(advise_huge_pages(nullptr, size_t{8} << 20));
}

TEST(HugePages, TheModeIsTheBracketedWordOfTheSetting) {
  EXPECT_EQ(huge_page_mode_of("always [madvise] never"), "madvise");
  EXPECT_EQ(huge_page_mode_of("[always] madvise never\n"), "always");
  EXPECT_EQ(huge_page_mode_of("always madvise [never]"), "never");
  EXPECT_EQ(huge_page_mode_of("always madvise never"), "");
  EXPECT_EQ(huge_page_mode_of("]never["), "");
  EXPECT_EQ(huge_page_mode_of(""), "");
  const std::string mode = huge_page_mode();
  EXPECT_TRUE(mode.empty() || mode == "always" || mode == "madvise" || mode == "never") << mode;
  EXPECT_NE(describe_huge_pages().find(mode.empty() ? "not offered" : mode), std::string::npos) << describe_huge_pages();
}

}  // namespace
}  // namespace cpuft
