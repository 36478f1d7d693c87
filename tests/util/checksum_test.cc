// XXH64 against the reference implementation's values (Python xxhash: xxhash.xxh64(data, seed)).
#include "cpuft/util/checksum.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "common/temp_dir.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

std::string bytes_0_to_255_five_times_xyz() {
  std::string s;
  for (int k = 0; k < 5; ++k)
    for (int i = 0; i < 256; ++i) s.push_back(static_cast<char>(i));
  return s + "xyz";
}

std::string repeated(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(Checksum, Xxh64MatchesTheReference) {
  EXPECT_EQ(hex64(xxh64("")), "ef46db3751d8e999");
  EXPECT_EQ(hex64(xxh64("a")), "d24ec4f1a98c6e5b");
  EXPECT_EQ(hex64(xxh64("abc")), "44bc2cf5ad770999");
  EXPECT_EQ(hex64(xxh64("abcd1234e")), "809280375a54e400");  // 8 + 1 bytes of tail
  EXPECT_EQ(hex64(xxh64(repeated("0123456789abcdef0123456789abcdefX", 3))), "74a325f4debf7e2d");
  EXPECT_EQ(hex64(xxh64(bytes_0_to_255_five_times_xyz())), "afd18a3957d3670a");
  EXPECT_EQ(hex64(xxh64("", 7)), "95f0626f6f0a4409");
  EXPECT_EQ(hex64(xxh64(bytes_0_to_255_five_times_xyz(), 7)), "8c974c9066dfd8ee");
}

TEST(Checksum, PiecesOfAnySizeGiveTheSameDigest) {
  const std::string s = bytes_0_to_255_five_times_xyz();
  for (size_t piece : {1u, 3u, 31u, 32u, 33u, 100u}) {
    Xxh64 h;
    for (size_t at = 0; at < s.size(); at += piece) h.update(s.data() + at, std::min(piece, s.size() - at));
    EXPECT_EQ(hex64(h.digest()), "afd18a3957d3670a") << piece;
  }
}

TEST(Checksum, FileChecksumReadsRegularFilesOnly) {
  const cpuft_test::TempDir tmp("cpuft_checksum_test");
  std::ofstream(tmp / "f", std::ios::binary) << bytes_0_to_255_five_times_xyz();
  const FileChecksum c = file_checksum(tmp / "f");
  EXPECT_EQ(c.bytes, 1283u);
  EXPECT_EQ(hex64(c.xxh64), "afd18a3957d3670a");
  EXPECT_THROW(file_checksum(tmp.path()), Error);
  EXPECT_THROW(file_checksum(tmp / "missing"), Error);
}

}  // namespace
}  // namespace cpuft
