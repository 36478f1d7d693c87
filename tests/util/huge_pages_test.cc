#include "cpuft/util/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cpuft/util/aligned_vector.h"

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

// The large buffers' mappings (AlignedVector's from 2 MiB on) carry the huge-page hint (smaps: VmFlags
// "hg"), hold zeros and their size; a small buffer gets no hint.
TEST(HugePages, LargeBuffersAreAdvisedBeforeTheirFirstWrite) {
  if (!kernel_has_thp()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  AlignedVector<float> big = {1.f, 2.f};
  big = AlignedVector<float>(size_t{16} << 20);  // 64 MiB
  ASSERT_EQ(big.size(), size_t{16} << 20);
  EXPECT_EQ(big.front(), 0.f);
  EXPECT_EQ(big.back(), 0.f);
  EXPECT_NE(vm_flags_at(big.data() + big.size() / 2).find(" hg"), std::string::npos) << vm_flags_at(big.data());
  AlignedVector<uint16_t> small(1000);
  EXPECT_FALSE(advise_huge_pages(small.data(), small.size() * sizeof(uint16_t)));
  EXPECT_FALSE(advise_huge_pages(nullptr, size_t{8} << 20));
}

// AlignedVector starts on a cache line (a std::vector's large allocation starts 16 bytes into a page:
// none of its 64-byte rows was on a cache line).
TEST(AlignedVector, StartsOnACacheLine) {
  for (size_t n : {size_t{1}, size_t{1000}, size_t{100000}, size_t{1} << 19, size_t{3} << 20}) {
    AlignedVector<uint16_t> v(n, 7);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % 64, 0u) << n;
    EXPECT_EQ(v.size(), n);
    v.resize(3 * n);  // a new allocation, aligned too, the values kept
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % 64, 0u) << n;
    EXPECT_EQ(v[n - 1], 7);
    EXPECT_EQ(v[3 * n - 1], 0);
  }
}

// Large buffers allocated one after the other, of one size or not, never start at the same place in their
// 4 KiB page or their 2 MiB huge page: weights, gradients and AdamW's moments lay 256 MiB apart, element i
// of each on one L1 set (and on Zen one L1 tag hash), and AdamW's pass over them ran 3-5x slower.
TEST(AlignedVector, LargeBuffersStartStaggeredInsideTheirHugePage) {
  constexpr uintptr_t kPage = 4096, kHugePage = uintptr_t{2} << 20, kStep = 4096 + 64;
  std::vector<AlignedVector<float>> floats;
  std::vector<AlignedVector<uint16_t>> halves;
  std::vector<uintptr_t> starts;
  for (int i = 0; i < 6; ++i) {
    floats.emplace_back(size_t{1} << 20);  // 4 MiB
    starts.push_back(reinterpret_cast<uintptr_t>(floats.back().data()));
    halves.emplace_back(size_t{3} << 20);  // 6 MiB
    starts.push_back(reinterpret_cast<uintptr_t>(halves.back().data()));
  }
  for (size_t i = 0; i < starts.size(); ++i) {
    const uintptr_t in_huge_page = starts[i] % kHugePage;
    EXPECT_EQ(in_huge_page % kStep, 0u) << i;
    EXPECT_LT(in_huge_page, 16 * kStep) << i;
    for (size_t j = 0; j < i; ++j) EXPECT_NE(starts[i] % kPage, starts[j] % kPage) << i << " " << j;
  }
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
