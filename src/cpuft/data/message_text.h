// Text from a data file as the error messages of the table readers quote it: cut as text_preview cuts
// it (util/json_read.h) and with control characters escaped (\n, \r, \t, \xHH), so that a column name or
// cell holding a line break still gives a one-line message.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "cpuft/util/json_read.h"

namespace cpuft {

inline std::string shown_text(std::string_view s, size_t max_chars = 48) {
  std::string out;
  for (char c : text_preview(s, max_chars)) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (u < 0x20 || u == 0x7f) {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace cpuft
