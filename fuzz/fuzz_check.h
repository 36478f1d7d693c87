// What every JSON-reader fuzz target checks of a rejected input: the error is one line, and short
// (values are previews, never whole: a message that grows with the input aborts the run).
#pragma once

#include <cstdlib>
#include <string>

#include "cpuft/util/error.h"

namespace cpuft_fuzz {

constexpr size_t kMaxMessage = 2000;

inline void check_error(const cpuft::Error& e) {
  const std::string what = e.what();
  if (what.find('\n') != std::string::npos || what.size() > kMaxMessage) std::abort();
}

}  // namespace cpuft_fuzz
