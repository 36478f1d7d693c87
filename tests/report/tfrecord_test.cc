#include "cpuft/report/tfrecord.h"

#include <gtest/gtest.h>

#include <string>

namespace {

TEST(Tfrecord, Crc32cMatchesTheStandardVectors) {
  // RFC 3720 (iSCSI), appendix B.4, and the usual check value.
  EXPECT_EQ(cpuft::crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(cpuft::crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) ascending.push_back(static_cast<char>(i)), descending.push_back(static_cast<char>(31 - i));
  EXPECT_EQ(cpuft::crc32c(ascending), 0x46DD794Eu);
  EXPECT_EQ(cpuft::crc32c(descending), 0x113FDB5Cu);
  EXPECT_EQ(cpuft::crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(cpuft::crc32c(""), 0u);
}

TEST(Tfrecord, MaskRotatesAndAddsTheConstant) {
  const uint32_t c = cpuft::crc32c("123456789");
  EXPECT_EQ(cpuft::masked_crc32c("123456789"), ((c >> 15) | (c << 17)) + 0xa282ead8u);
}

TEST(Tfrecord, FramesLengthChecksumDataChecksum) {
  const std::string r = cpuft::tfrecord("abc");
  ASSERT_EQ(r.size(), 8u + 4 + 3 + 4);
  EXPECT_EQ(r.substr(0, 8), std::string("\x03\0\0\0\0\0\0\0", 8));  // little-endian uint64
  auto le32 = [&](size_t at) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(r[at + static_cast<size_t>(i)]);
    return v;
  };
  EXPECT_EQ(le32(8), cpuft::masked_crc32c(r.substr(0, 8)));
  EXPECT_EQ(r.substr(12, 3), "abc");
  EXPECT_EQ(le32(15), cpuft::masked_crc32c("abc"));
  EXPECT_EQ(cpuft::tfrecord("").size(), 16u);
}

}  // namespace
