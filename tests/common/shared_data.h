// The full SQuAD v1.1 files (official dev set, train subset) that some parity tests read from a
// `shared/data/squad/` folder beside the repository; a plain clone does not have them.
// Outside CI such a test skips and says which file is missing; under CI (CI=true, as .ci/run sets)
// a missing file fails the test, so a CI run can never pass with the parity tests silently skipped.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace cpuft_test {

inline std::string shared_squad_path(const std::string& file) {
  return std::string(CPUFT_SOURCE_DIR) + "/../shared/data/squad/" + file;
}

inline bool running_in_ci() {
  const char* v = std::getenv("CI");
  return v != nullptr && (std::strcmp(v, "true") == 0 || std::strcmp(v, "1") == 0);
}

}  // namespace cpuft_test

// Declares `const std::string var` = the path of shared/data/squad/FILE; skips the test (or, under
// CI, fails it) when the file is absent.
#define CPUFT_SHARED_SQUAD_OR_SKIP(var, file)                                                      \
  const std::string var = cpuft_test::shared_squad_path(file);                                     \
  if (!std::filesystem::is_regular_file(var)) {                                                    \
    if (cpuft_test::running_in_ci()) FAIL() << var << " is missing: CI runs need shared/data/squad beside the repository"; \
    GTEST_SKIP() << var << " not present (the full SQuAD files beside the repository)";            \
  }
