#include "cpuft/report/tfrecord.h"

#include <array>

namespace cpuft {

namespace {

std::array<uint32_t, 256> crc_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
    t[i] = c;
  }
  return t;
}

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

uint32_t crc32c(std::string_view data) {
  static const std::array<uint32_t, 256> table = crc_table();
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : data) c = table[(c ^ b) & 0xff] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

uint32_t masked_crc32c(std::string_view data) {
  const uint32_t c = crc32c(data);
  return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

std::string tfrecord(std::string_view data) {
  std::string length;
  put_le(length, data.size(), 8);
  std::string out = length;
  put_le(out, masked_crc32c(length), 4);
  out.append(data.data(), data.size());
  put_le(out, masked_crc32c(data), 4);
  return out;
}

}  // namespace cpuft
