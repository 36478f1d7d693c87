#include "cpuft/tensor/dtype.h"

#include <gtest/gtest.h>

namespace cpuft {
namespace {

TEST(DType, SizesAndNames) {
  EXPECT_EQ(dtype_size(DType::kF32), 4u);
  EXPECT_EQ(dtype_size(DType::kBf16), 2u);
  EXPECT_EQ(dtype_size(DType::kI32), 4u);
  EXPECT_EQ(dtype_size(DType::kI64), 8u);
  EXPECT_STREQ(dtype_name(DType::kF32), "f32");
  EXPECT_STREQ(dtype_name(DType::kBf16), "bf16");
  EXPECT_STREQ(dtype_name(DType::kI32), "i32");
  EXPECT_STREQ(dtype_name(DType::kI64), "i64");
}

}  // namespace
}  // namespace cpuft
