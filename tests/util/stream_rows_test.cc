// stream_rows: the rows land where they should and nothing else is written, whether the rows go out
// by streaming stores (aligned) or by the plain copy (a misaligned destination or row).
#include "cpuft/util/stream_rows.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace cpuft {
namespace {

// rows x row_bytes copied from a source of stride src_ld into a destination of stride dst_ld, starting
// `offset` bytes into a 64-byte aligned buffer; every other destination byte keeps its 0xEE.
void check(int64_t rows, size_t row_bytes, size_t src_ld, size_t dst_ld, size_t offset) {
  std::vector<uint8_t> src(static_cast<size_t>(rows) * src_ld);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7 + 3);
  const size_t size = offset + static_cast<size_t>(rows) * dst_ld + 64;
  alignas(64) static uint8_t dst[1 << 16];
  ASSERT_LE(size, sizeof(dst));
  std::fill(dst, dst + size, 0xEE);
  stream_rows(dst + offset, dst_ld, src.data(), src_ld, rows, row_bytes);
  for (size_t i = 0; i < size; ++i) {
    const bool inside = i >= offset && (i - offset) / dst_ld < static_cast<size_t>(rows) && (i - offset) % dst_ld < row_bytes;
    const uint8_t want = inside ? src[(i - offset) / dst_ld * src_ld + (i - offset) % dst_ld] : 0xEE;
    ASSERT_EQ(dst[i], want) << "byte " << i << " (rows " << rows << ", row_bytes " << row_bytes << ", offset " << offset << ")";
  }
}

TEST(StreamRows, AlignedRowsByStreamingStores) {
  check(7, 256, 3 * 256, 9 * 256, 0);  // an attention head's f32 rows: 64 floats, strided on both sides
  check(5, 128, 128, 1536, 64);         // bf16 rows of 64 into a wider matrix
  check(3, 16, 40, 48, 16);             // one vector a row, an unaligned source
}

TEST(StreamRows, MisalignedDestinationOrRowsByThePlainCopy) {
  check(4, 256, 256, 512, 4);  // destination 4 bytes off
  check(4, 250, 256, 512, 0);  // rows not whole vectors
  check(4, 256, 256, 520, 0);  // destination stride not whole vectors
  check(0, 256, 256, 512, 0);  // no rows: nothing written
}

}  // namespace
}  // namespace cpuft
