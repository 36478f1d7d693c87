// The bounded JSON reader: nesting is limited before a value is built (deep documents crashed the
// printers and writers that recurse), parse errors name the position and stay short, and previews of
// values in messages are short whatever the value holds.
#include "cpuft/util/json_read.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpuft/util/error.h"

namespace {

using nlohmann::json;

std::string parse_error(const std::string& text, const cpuft::JsonReadOptions& options = {}) {
  try {
    cpuft::parse_json(text, "f.json", options);
  } catch (const cpuft::Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string nested(int depth, const std::string& inner = "1") {
  return std::string(static_cast<size_t>(depth), '[') + inner + std::string(static_cast<size_t>(depth), ']');
}

TEST(JsonRead, NestingUpToTheLimitIsRead) {
  const json j = cpuft::parse_json(nested(cpuft::kMaxJsonDepth), "f.json");
  EXPECT_TRUE(j.is_array());
}

TEST(JsonRead, DeeperNestingIsRefusedWithItsPosition) {
  EXPECT_EQ(parse_error(nested(cpuft::kMaxJsonDepth + 1)),
            "f.json: nested deeper than 64 levels at byte 65 (line 1, column 65)");
  // 100,000 levels: what crashed the error printers and the results writer.
  const std::string deep = "{\"model_type\": " + nested(100000) + "}";
  EXPECT_EQ(parse_error(deep), "f.json: nested deeper than 64 levels at byte 79 (line 1, column 79)");
  cpuft::JsonReadOptions o;
  o.expected = "a config.json object";
  EXPECT_EQ(parse_error("\n" + nested(70), o),
            "f.json: nested deeper than 64 levels at byte 66 (line 2, column 65); expected a config.json object");
}

TEST(JsonRead, BracketsInsideStringsDoNotCount) {
  const std::string text = "[\"" + std::string(100, '[') + "\\\"" + std::string(100, '{') + "\"]";
  EXPECT_EQ(cpuft::parse_json(text, "f.json")[0].get<std::string>().size(), 201u);
}

TEST(JsonRead, ParseErrorsAreOneShortLine) {
  const std::string err = parse_error("{\"a\": \"" + std::string(1 << 20, 'x') + "\u0001\"}");
  EXPECT_EQ(err.rfind("f.json: not valid JSON at byte 1048584 (line 1, column 1048584): ", 0), 0u) << err;
  EXPECT_LT(err.size(), 300u) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos);
  EXPECT_EQ(parse_error("{\"a\": 1E400}"), "f.json: not valid JSON (number overflow parsing '1E400')");
  EXPECT_EQ(parse_error("{\"a\": 1,\n,}").rfind("f.json: not valid JSON at byte 10 (line 2, column 1): ", 0), 0u);
}

// JSON lines (the tables of the classification jobs): a byte order mark skipped, blank lines skipped but
// counted, each line's own number in its messages, anything but an object refused.
TEST(JsonRead, JsonLinesGiveEachObjectWithItsLineNumber) {
  std::vector<std::string> seen;
  cpuft::for_each_json_object_line("\xEF\xBB\xBF{\"a\": 1}\r\n\n  \t\r\n{\"b\": [2]}", "t.jsonl",
                                   [&](int64_t n, std::string_view line, const json& j) {
                                     seen.push_back(std::to_string(n) + " " + std::string(line) + " " + j.dump());
                                   });
  EXPECT_EQ(seen, (std::vector<std::string>{"1 {\"a\": 1}\r {\"a\":1}", "4 {\"b\": [2]} {\"b\":[2]}"}));
  auto error = [](const std::string& text) {
    try {
      cpuft::for_each_json_object_line(text, "t.jsonl", [](int64_t, std::string_view, const json&) {});
    } catch (const cpuft::Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error("{}\n\n\"x\"\n"), "t.jsonl:3: string \"x\", expected a JSON object (one per line)");
  EXPECT_EQ(error("{}\n{\"a\":\n").rfind("t.jsonl:2: not valid JSON at byte 6 (line 1, column 6): ", 0), 0u)
      << error("{}\n{\"a\":\n");
  EXPECT_EQ(error(""), "(no error)");
}

TEST(JsonRead, HugeIntegersReadAsNumbers) {
  const json j = cpuft::parse_json("[18446744073709551616, -9223372036854775809]", "f.json");
  EXPECT_TRUE(j[0].is_number_float());
  EXPECT_TRUE(j[1].is_number_float());
}

TEST(JsonRead, DuplicateKeysOnlyWhenAsked) {
  EXPECT_EQ(cpuft::parse_json("{\"a\": 1, \"a\": 2}", "f.json")["a"], 2);
  cpuft::JsonReadOptions strict;
  strict.reject_duplicate_keys = true;
  EXPECT_EQ(parse_error("{\"b\": {\"a\": 1, \"a\": 2}}", strict), "f.json: duplicate key 'a'");
  EXPECT_EQ(parse_error("{\"b\": {\"a\": 1}, \"c\": {\"a\": 2}}", strict), "(no error)");
}

TEST(JsonRead, PreviewsAreShort) {
  EXPECT_EQ(cpuft::json_preview(json("abc")), "\"abc\"");
  EXPECT_EQ(cpuft::json_preview(json(12)), "12");
  EXPECT_EQ(cpuft::json_preview(json::parse("{\"a\": [1, 2]}")), "{\"a\":[1,2]}");
  const std::string long_preview = cpuft::json_preview(json(std::string(10 << 20, 'y')));
  EXPECT_EQ(long_preview, "\"" + std::string(44, 'y') + "...");
  json deep = json::array();
  for (int i = 0; i < 60; ++i) deep = json::array({deep});
  EXPECT_EQ(cpuft::json_preview(deep), std::string(45, '[') + "...");
  json wide = json::array();
  for (int i = 0; i < 100000; ++i) wide.push_back(i);
  EXPECT_EQ(cpuft::json_preview(wide).size(), 48u);
  // Cut inside a multi-byte character: the preview stays valid (ASCII escapes).
  const std::string accents = cpuft::json_preview(json(std::string(30, 'a') + std::string(40, '\xC3') + "\xA9"));
  EXPECT_LE(accents.size(), 48u);
  for (char c : accents) EXPECT_LT(static_cast<unsigned char>(c), 0x80u);
  EXPECT_EQ(cpuft::json_describe(json("x")), "string \"x\"");
  EXPECT_EQ(cpuft::json_describe(json::object()), "object");
}

TEST(JsonRead, TextPreviewCutsAtCharacterBoundaries) {
  EXPECT_EQ(cpuft::text_preview("short"), "short");
  EXPECT_EQ(cpuft::text_preview(std::string(100, 'z'), 10), std::string(10, 'z') + "...");
  EXPECT_EQ(cpuft::text_preview("aaaaaaaaa\xC3\xA9xyz", 10), "aaaaaaaaa...");
}

TEST(JsonRead, TextPreviewEscapesControlBytes) {
  // A name from a file may hold a newline (a JSON key "a\\nb"): the message must stay one line.
  EXPECT_EQ(cpuft::text_preview("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(cpuft::text_preview(std::string("x\0y\x1f\x7f", 5)), "x\\x00y\\x1f\\x7f");
  EXPECT_EQ(cpuft::text_preview(std::string(20, '\n'), 4), "\\n\\n\\n\\n...");
  EXPECT_EQ(cpuft::text_preview("caf\xC3\xA9"), "caf\xC3\xA9");  // UTF-8 as is
}

}  // namespace
