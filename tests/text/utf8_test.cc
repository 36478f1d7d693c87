#include "cpuft/text/utf8.h"

#include <gtest/gtest.h>

#include "cpuft/text/unicode_class.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

TEST(Utf8, DecodesAndCountsCodePoints) {
  const std::string s = "a\u00e9\u4e2d\U0001F600";
  EXPECT_EQ(decode_utf8(s), (std::u32string{U'a', 0xE9, 0x4E2D, 0x1F600}));
  EXPECT_EQ(count_code_points(s), 4u);
  EXPECT_EQ(code_point_byte_offsets(s), (std::vector<size_t>{0, 1, 3, 6, 10}));
  std::string back;
  for (char32_t c : decode_utf8(s)) append_utf8(c, back);
  EXPECT_EQ(back, s);
}

TEST(Utf8, SlicesByCodePoints) {
  const std::string s = "caf\u00e9 \u4e2d\u6587";
  EXPECT_EQ(utf8_slice(s, 0, 4), "caf\u00e9");
  EXPECT_EQ(utf8_slice(s, 5, 7), "\u4e2d\u6587");
  EXPECT_EQ(utf8_slice(s, 5, 100), "\u4e2d\u6587");
  EXPECT_EQ(utf8_slice(s, 3, 3), "");
  EXPECT_EQ(utf8_slice(s, 9, 12), "");
}

TEST(Utf8, RejectsMalformedInput) {
  EXPECT_THROW(decode_utf8("ab\xC3"), Error);        // truncated
  EXPECT_THROW(decode_utf8("\xED\xA0\x80"), Error);  // surrogate
  EXPECT_THROW(decode_utf8("\xC0\xAF"), Error);      // overlong
  try {
    decode_utf8("ok\xFF");
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "invalid UTF-8 at byte 2: expected a valid UTF-8 sequence");
  }
}

TEST(Utf8, PythonLstrip) {
  EXPECT_EQ(lstrip_python_space(" \t\n\u3000\u00a0\x1c Who?  "), "Who?  ");
  EXPECT_EQ(lstrip_python_space("\u200bWho"), "\u200bWho");  // ZWSP is not str.isspace()
  EXPECT_EQ(lstrip_python_space("   "), "");
}

}  // namespace
}  // namespace cpuft
