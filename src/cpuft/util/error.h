// Errors: every failure a user can cause is reported as one line naming the file, the field or
// offset, the value found and what was expected. The library throws cpuft::Error for those and
// cpuft::InternalError for a broken invariant (a bug in cpuft, never the input's fault); only the CLI
// turns them into a message and an exit code (no exit() in the library).
#pragma once

#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace cpuft {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Not an Error: code that rewords user errors (catch (const Error&)) leaves it alone.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// `text` with its control bytes escaped (\n, \r, \t, \xNN): how every message is printed (errors here,
// log lines in util/log.h), so that a path or a value holding a newline cannot make a message two lines.
inline std::string one_line(std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7F) out += {'\\', 'x', kHex[c >> 4], kHex[c & 0xF]};
    else out += ch;
  }
  return out;
}

// What the CLI makes of an exception: 1 for cpuft::Error (the user's), 3 for anything else
// (InternalError, std::bad_alloc, ...), and the line it prints, "error: ..." or "internal error: ...".
inline int exit_status_of(const std::exception& e) { return dynamic_cast<const Error*>(&e) ? 1 : 3; }
inline std::string error_line(const std::exception& e) {
  return std::string(exit_status_of(e) == 1 ? "error: " : "internal error: ") + one_line(e.what());
}

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

// Throws cpuft::InternalError with the concatenated message: a check of something the code itself
// guarantees (sizes it computed, the call order of its own parts).
template <typename... Args>
[[noreturn]] void fail_internal(Args&&... args) {
  throw InternalError(str_cat(std::forward<Args>(args)...));
}

}  // namespace cpuft
