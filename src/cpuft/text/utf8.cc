#include "cpuft/text/utf8.h"

#include <utf8proc.h>

namespace cpuft {

void append_utf8(char32_t cp, std::string& out) {
  utf8proc_uint8_t buf[4];
  const auto len = utf8proc_encode_char(static_cast<utf8proc_int32_t>(cp), buf);
  out.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(len));
}

static bool starts_code_point(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

size_t count_code_points(std::string_view utf8) {
  size_t n = 0;
  for (char c : utf8) n += starts_code_point(c);
  return n;
}

std::vector<size_t> code_point_byte_offsets(std::string_view utf8) {
  std::vector<size_t> offsets;
  offsets.reserve(utf8.size() + 1);
  for (size_t i = 0; i < utf8.size(); ++i) {
    if (starts_code_point(utf8[i])) offsets.push_back(i);
  }
  offsets.push_back(utf8.size());
  return offsets;
}

std::string_view utf8_slice(std::string_view utf8, int64_t begin, int64_t end) {
  if (begin < 0) begin = 0;
  if (end <= begin) return {};
  size_t first = std::string_view::npos;
  size_t last = utf8.size();
  int64_t cp = -1;
  for (size_t byte = 0; byte < utf8.size(); ++byte) {
    if (!starts_code_point(utf8[byte])) continue;
    ++cp;
    if (cp == begin) first = byte;
    if (cp == end) {
      last = byte;
      break;
    }
  }
  if (first == std::string_view::npos) return {};
  return utf8.substr(first, last - first);
}

}  // namespace cpuft
