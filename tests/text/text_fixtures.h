// Shared helpers of the text tests: fixture paths and scratch tokenizer directories.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cpuft/util/atomic_file.h"
#include "cpuft/util/read_file.h"

namespace cpuft::testing {

inline std::string text_fixture(const std::string& name) { return std::string(CPUFT_TEST_DATA) + "/text/" + name; }

inline nlohmann::json read_json_fixture(const std::string& name) {
  return nlohmann::json::parse(read_file(text_fixture(name)));
}

// A fresh directory under the system temp dir, removed when the object goes away.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag) {
    path_ = std::filesystem::temp_directory_path() /
            ("cpuft_text_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string path() const { return path_.string(); }
  void write(const std::string& name, const std::string& bytes) const {
    write_file_atomic((path_ / name).string(), bytes);
  }
  void copy_fixture(const std::string& name) const { write(name, read_file(text_fixture(name))); }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::filesystem::path path_;
};

}  // namespace cpuft::testing
