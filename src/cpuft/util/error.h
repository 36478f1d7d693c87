// Errors: every failure a user can cause is reported as one line naming the file, the field or
// offset, the value found and what was expected. The library throws cpuft::Error; only the CLI
// turns it into a message and an exit code (no exit() in the library).
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace cpuft {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Concatenates its arguments with operator<<: str_cat("expected ", 3, " got ", x).
template <typename... Args>
std::string str_cat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}

// Throws cpuft::Error with the concatenated message.
template <typename... Args>
[[noreturn]] void fail(Args&&... args) {
  throw Error(str_cat(std::forward<Args>(args)...));
}

}  // namespace cpuft
