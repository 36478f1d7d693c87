// A slice of a larger tensor, dropped with first_index = its offset, gets exactly the masks the
// whole tensor gets there (what makes N ranks x batch b train like 1 rank x batch N*b).
#include <gtest/gtest.h>

#include <vector>

#include "cpuft/kernels/dropout.h"

TEST(DropoutOffset, SliceWithFirstIndexMatchesWholeTensor) {
  const int64_t n = 4099, offset = 1537;
  std::vector<float> in(n), whole(n);
  for (int64_t i = 0; i < n; ++i) in[i] = 1.0f + 0.001f * static_cast<float>(i);
  cpuft::dropout_fwd(whole.data(), nullptr, in.data(), n, 0.25f, 77, 5);
  std::vector<float> part(n - offset);
  cpuft::dropout_fwd(part.data(), nullptr, in.data() + offset, n - offset, 0.25f, 77, 5, offset);
  for (int64_t i = 0; i < n - offset; ++i) ASSERT_EQ(part[i], whole[offset + i]) << "element " << offset + i;
  std::vector<float> back(n - offset, 1.0f);
  cpuft::dropout_bwd(back.data(), nullptr, back.data(), n - offset, 0.25f, 77, 5, offset);
  for (int64_t i = 0; i < n - offset; ++i) {
    const bool kept = cpuft::dropout_keep(77, 5, static_cast<uint64_t>(offset + i), 0.25f);
    ASSERT_EQ(back[i] != 0.0f, kept) << "element " << offset + i;
    ASSERT_EQ(whole[offset + i] != 0.0f, kept);
  }
}
