// Reads a TensorBoard event file back, as TensorBoard's record reader does: each TFRecord's length and
// data are checked against their masked CRC-32C, then parsed as an Event (report/event.proto). A file
// that does not hold whole, intact records throws, saying at which byte.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpuft/report/event.pb.h"
#include "cpuft/report/tfrecord.h"

namespace cpuft_test {

inline uint64_t read_le(const std::string& s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + static_cast<size_t>(i)]);
  return v;
}

// Every record of `bytes` (an event file's contents), parsed.
inline std::vector<cpuft::tensorboard::Event> parse_events(const std::string& bytes) {
  std::vector<cpuft::tensorboard::Event> out;
  size_t at = 0;
  while (at < bytes.size()) {
    const std::string where = " at byte " + std::to_string(at);
    if (bytes.size() - at < 12) throw std::runtime_error("truncated record header" + where);
    const uint64_t n = read_le(bytes, at, 8);
    if (read_le(bytes, at + 8, 4) != cpuft::masked_crc32c(std::string_view(bytes).substr(at, 8)))
      throw std::runtime_error("length checksum mismatch" + where);
    if (bytes.size() - at - 12 < n + 4) throw std::runtime_error("truncated record data" + where);
    const std::string_view data = std::string_view(bytes).substr(at + 12, n);
    if (read_le(bytes, at + 12 + n, 4) != cpuft::masked_crc32c(data))
      throw std::runtime_error("data checksum mismatch" + where);
    cpuft::tensorboard::Event e;
    if (!e.ParseFromArray(data.data(), static_cast<int>(data.size())))
      throw std::runtime_error("not an Event" + where);
    out.push_back(e);
    at += 12 + n + 4;
  }
  return out;
}

inline std::string slurp_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot open");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::vector<cpuft::tensorboard::Event> read_events(const std::string& path) {
  return parse_events(slurp_file(path));
}

}  // namespace cpuft_test
