// Helpers for the io tests: hand-made safetensors files, error checks (scratch directories: common/temp_dir.h).
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cpuft/util/atomic_file.h"
#include "cpuft/util/error.h"
#include "cpuft/util/read_file.h"

namespace io_test {

inline std::string fixture(const std::string& rel) { return std::string(CPUFT_FIXTURES) + "/io/" + rel; }

inline void make_dirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') ::mkdir(path.substr(0, i).c_str(), 0755);
  }
}

// A safetensors file from a header string (taken as is, no padding) and a data buffer.
inline void craft(const std::string& path, const std::string& header, const std::string& data,
                  uint64_t declared_size = UINT64_MAX) {
  uint64_t n = declared_size == UINT64_MAX ? header.size() : declared_size;
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  cpuft::write_file_atomic(path, bytes + header + data);
}

// Runs fn, expects a cpuft::Error whose one-line message contains every piece.
inline void expect_error(const std::function<void()>& fn, const std::vector<std::string>& pieces) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one containing '" << pieces.front() << "'";
  } catch (const cpuft::Error& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    for (const std::string& p : pieces) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }
}

}  // namespace io_test
