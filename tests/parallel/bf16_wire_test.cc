#include "cpuft/parallel/bf16_wire.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

TEST(Bf16Wire, RoundsToNearestEven) {
  EXPECT_EQ(cpuft::f32_to_bf16(1.0f), 0x3f80);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even mantissa (1.0).
  EXPECT_EQ(cpuft::f32_to_bf16(1.0f + 1.0f / 256), 0x3f80);
  EXPECT_EQ(cpuft::f32_to_bf16(1.0f + 3.0f / 256), 0x3f82);
  EXPECT_EQ(cpuft::bf16_to_f32(0xc000), -2.0f);
  EXPECT_TRUE(std::isnan(cpuft::bf16_to_f32(cpuft::f32_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isinf(cpuft::bf16_to_f32(cpuft::f32_to_bf16(std::numeric_limits<float>::infinity()))));
}

TEST(Bf16Wire, SumIntoAddsInF32AndRounds) {
  uint16_t in[2] = {cpuft::f32_to_bf16(1.5f), cpuft::f32_to_bf16(256.0f)};
  uint16_t io[2] = {cpuft::f32_to_bf16(2.25f), cpuft::f32_to_bf16(1.0f)};
  cpuft::bf16_sum_into(in, io, 2);
  EXPECT_EQ(cpuft::bf16_to_f32(io[0]), 3.75f);
  EXPECT_EQ(cpuft::bf16_to_f32(io[1]), 256.0f);  // 257 is not representable: rounds to even 256
  float f[3] = {0.1f, -3.0f, 1e30f}, back[3];
  uint16_t h[3];
  cpuft::f32_to_bf16_array(f, h, 3);
  cpuft::bf16_to_f32_array(h, back, 3);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(back[i], f[i], std::fabs(f[i]) / 256) << i;
}

}  // namespace
