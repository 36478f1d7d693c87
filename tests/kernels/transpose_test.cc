// transpose_bf16 (kernels/transpose.h): the transpose, value for value, at shapes whose rows and columns
// leave partial blocks, on the line-writing path (dst on a cache line, its stride a multiple of 32) and on
// the value-by-value one; what lies past each row of dst untouched.
#include "cpuft/kernels/transpose.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "cpuft/util/aligned_vector.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

constexpr uint16_t kUntouched = 0xabcd;

// src [rows, cols] transposed into dst at `offset` elements past a cache line, row stride ld; then every
// element checked, those in [rows, ld) of each row against kUntouched.
void expect_transpose(int64_t rows, int64_t cols, int64_t ld, int64_t offset) {
  std::mt19937 rng(static_cast<unsigned>(rows * 1000 + cols));
  std::vector<uint16_t> src(static_cast<size_t>(rows * cols));
  for (uint16_t& v : src) v = static_cast<uint16_t>(rng());
  AlignedVector<uint16_t> buf(static_cast<size_t>(offset + cols * ld + 1), kUntouched);
  uint16_t* dst = buf.data() + offset;
  transpose_bf16(dst, ld, src.data(), rows, cols);
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t r = 0; r < ld; ++r) {
      const uint16_t want = r < rows ? src[static_cast<size_t>(r * cols + c)] : kUntouched;
      ASSERT_EQ(dst[c * ld + r], want) << rows << " x " << cols << ", ld " << ld << ", offset " << offset
                                       << ": dst row " << c << ", element " << r;
    }
  EXPECT_EQ(buf[static_cast<size_t>(offset + cols * ld)], kUntouched) << "past the end";
  if (offset > 0) {
    EXPECT_EQ(buf[0], kUntouched) << "before the start";
  }
}

TEST(Transpose, Bf16GivesTheTransposeOnWholeLines) {
  // Whole blocks of 32 rows and partial ones, column counts with and without a tail past 8, one large
  // enough for the threads; DistilBERT's widths.
  const int64_t shapes[][2] = {{32, 8}, {64, 768}, {96, 2304}, {300, 260}, {33, 17}, {31, 9}, {1, 1}, {256, 3072}};
  for (const auto& s : shapes) expect_transpose(s[0], s[1], transpose_bf16_ld(s[0]), 0);
}

TEST(Transpose, Bf16GivesTheTransposeWhereRowsAreNotOnLines) {
  expect_transpose(64, 40, 64, 1);   // dst one element past a line
  expect_transpose(64, 40, 70, 0);   // a stride that is not a multiple of 32
  expect_transpose(37, 11, 37, 0);   // no padding at all
  expect_transpose(0, 5, 0, 0);      // nothing to write
  expect_transpose(5, 0, 32, 0);
}

TEST(Transpose, StrideShorterThanARowIsRefused) {
  std::vector<uint16_t> src(64), dst(64);
  EXPECT_THROW(transpose_bf16(dst.data(), 7, src.data(), 8, 8), InternalError);
}

TEST(Transpose, LineStrideIsRowsRoundedUpTo32) {
  EXPECT_EQ(transpose_bf16_ld(0), 0);
  EXPECT_EQ(transpose_bf16_ld(1), 32);
  EXPECT_EQ(transpose_bf16_ld(32), 32);
  EXPECT_EQ(transpose_bf16_ld(3072), 3072);
  EXPECT_EQ(transpose_bf16_ld(3073), 3104);
}

}  // namespace
}  // namespace cpuft
