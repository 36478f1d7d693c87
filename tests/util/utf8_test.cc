#include "cpuft/util/utf8.h"

#include <gtest/gtest.h>

#include "cpuft/util/error.h"
#include "cpuft/util/py_json.h"

namespace cpuft {
namespace {

// The limits of each sequence length: the first and last code point of each, and the forms Unicode
// forbids just past them (overlong, surrogates, above U+10FFFF, stray or missing continuation bytes).
TEST(Utf8Decoder, AcceptsExactlyTheValidSequences) {
  EXPECT_EQ(decode_utf8("\x7f\xc2\x80\xdf\xbf"), (std::u32string{0x7F, 0x80, 0x7FF}));
  EXPECT_EQ(decode_utf8("\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf"),
            (std::u32string{0x800, 0xD7FF, 0xE000, 0xFFFF}));
  EXPECT_EQ(decode_utf8("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"), (std::u32string{0x10000, 0x10FFFF}));
  for (const char* bad : {"\x80", "\xc1\xbf", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80",
                          "\xf5\x80\x80\x80", "\xff", "\xc3", "\xe2\x82", "\xc3\x28", "\xe2\x28\xa1"})
    EXPECT_THROW(decode_utf8(bad), Error) << bad;
  try {
    decode_utf8("\xff", 40);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "invalid UTF-8 at byte 40: expected a valid UTF-8 sequence");
  }
}

// Bytes that are not UTF-8 (a file name, a command-line value) come through as Python's
// surrogateescape decodes them, and json.dumps writes those as \udcXX.
TEST(Utf8Decoder, EscapesWhatIsNotUtf8AsPythonDoes) {
  EXPECT_EQ(decode_utf8_escaping("a\xff\xc3\xa9\xc3"), (std::u32string{U'a', 0xDCFF, 0xE9, 0xDCC3}));
  EXPECT_EQ(py_json_string("out-\xff/\xc3\xa9"), "\"out-\\udcff/\\u00e9\"");
  EXPECT_EQ(py_json_dumps(nlohmann::json{{"k\xfe", "v"}}, 2), "{\n  \"k\\udcfe\": \"v\"\n}");
}

TEST(Utf8Decoder, ValidPrefixStopsAtTheFirstBadByte) {
  EXPECT_EQ(valid_utf8_prefix("abc"), 3u);
  EXPECT_EQ(valid_utf8_prefix("a\xc3\xa9" "b"), 4u);
  EXPECT_EQ(valid_utf8_prefix("ab\xff"), 2u);
  EXPECT_EQ(valid_utf8_prefix("a\xc3"), 1u);            // cut sequence
  EXPECT_EQ(valid_utf8_prefix("a\xed\xa0\x80"), 1u);    // a surrogate
  EXPECT_EQ(valid_utf8_prefix("a\xc0\xaf"), 1u);        // overlong
}

}  // namespace
}  // namespace cpuft
