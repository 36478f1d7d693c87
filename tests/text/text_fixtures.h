// Shared helpers of the text tests: fixture paths and scratch tokenizer directories.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "common/temp_dir.h"
#include "cpuft/util/atomic_file.h"
#include "cpuft/util/read_file.h"

namespace cpuft::testing {

inline std::string text_fixture(const std::string& name) { return std::string(CPUFT_FIXTURES) + "/text/" + name; }

inline nlohmann::json read_json_fixture(const std::string& name) {
  return nlohmann::json::parse(read_file(text_fixture(name)));
}

// A scratch tokenizer directory (common/temp_dir.h), removed when the object goes away.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag) : dir_("cpuft_text_" + tag) {}

  std::string path() const { return dir_.path(); }
  void write(const std::string& name, const std::string& bytes) const { write_file_atomic(dir_ / name, bytes); }
  void copy_fixture(const std::string& name) const { write(name, read_file(text_fixture(name))); }

 private:
  cpuft_test::TempDir dir_;
};

}  // namespace cpuft::testing
