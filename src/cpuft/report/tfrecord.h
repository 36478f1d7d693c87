// The TFRecord framing of TensorBoard event files: each record is
//   uint64 length (little-endian) | uint32 masked_crc32c(length bytes) | data | uint32 masked_crc32c(data)
// so that a reader can find where a record is cut short (a file being written, a crash) and skip it.
// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) is written here: Debian 12 packages no CRC-32C
// library for C++, and the table-driven form is a few lines (checked against RFC 3720's test vectors).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cpuft {

uint32_t crc32c(std::string_view data);
// TFRecord's mask: ((crc >> 15) | (crc << 17)) + 0xa282ead8.
uint32_t masked_crc32c(std::string_view data);

// One framed record holding `data`.
std::string tfrecord(std::string_view data);

}  // namespace cpuft
