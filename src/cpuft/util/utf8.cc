#include "cpuft/util/utf8.h"

#include "cpuft/util/error.h"

namespace cpuft {
namespace {

// Length of the valid sequence at s[i] and its code point in *cp; 0 when none starts there.
size_t sequence_at(std::string_view s, size_t i, char32_t* cp) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = byte(0);
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;  // a continuation byte, an overlong lead (C0, C1) or F5..FF
  }
  if (i + len > s.size() || byte(1) < lo || byte(1) > hi) return 0;
  char32_t v = c & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (byte(k) & 0x3F);
  }
  *cp = v;
  return len;
}

std::u32string decode(std::string_view s, size_t byte_base, bool escape) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const size_t len = sequence_at(s, i, &cp);
    if (len == 0) {
      if (!escape) fail("invalid UTF-8 at byte ", byte_base + i, ": expected a valid UTF-8 sequence");
      out.push_back(0xDC00 + static_cast<unsigned char>(s[i++]));
      continue;
    }
    out.push_back(cp);
    i += len;
  }
  return out;
}

}  // namespace

std::u32string decode_utf8(std::string_view utf8, size_t byte_base) { return decode(utf8, byte_base, false); }

std::u32string decode_utf8_escaping(std::string_view bytes) { return decode(bytes, 0, true); }

size_t valid_utf8_prefix(std::string_view utf8) {
  size_t i = 0;
  for (char32_t cp = 0; i < utf8.size();) {
    const size_t len = sequence_at(utf8, i, &cp);
    if (len == 0) break;
    i += len;
  }
  return i;
}

}  // namespace cpuft
