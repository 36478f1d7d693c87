// The one way cpuft reads JSON: bounded nesting (checked before a value is built, so no reader,
// printer or writer ever recurses through a hostile document), errors that name the source and the
// line/column, and previews of values for error messages that are short whatever the value holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace cpuft {

// Deepest nesting of arrays and objects accepted. The deepest file cpuft reads for real (SQuAD:
// data[].paragraphs[].qas[].answers[]) nests 6 levels; the limit leaves room for any real file
// while keeping every recursive walk over a value shallow.
constexpr int kMaxJsonDepth = 64;

struct JsonReadOptions {
  int max_depth = kMaxJsonDepth;
  bool reject_duplicate_keys = false;  // a key repeated in one object is an error (safetensors headers)
  const char* expected = nullptr;      // what the file should be, ends the messages: "; expected EXPECTED"
};

// Parses `text`. Errors are one line starting with `source` (B is the 1-based byte offset):
//   "SOURCE: not valid JSON at byte B (line L, column C): WHAT THE PARSER SAYS, CUT"
//   "SOURCE: nested deeper than 64 levels at byte B (line L, column C)"
//   "SOURCE: not valid JSON (number overflow parsing '1E400')" (a number no double holds)
//   "SOURCE: duplicate key 'K'"
// each followed by "; expected EXPECTED" when options.expected is set.
nlohmann::json parse_json(std::string_view text, const std::string& source, const JsonReadOptions& options = {});

// read_file(path, max_bytes) (util/read_file.h: regular files only) + parse_json(text, path).
nlohmann::json read_json_file(const std::string& path, uint64_t max_bytes, const JsonReadOptions& options = {});

// A JSON-lines text (a UTF-8 byte order mark skipped): fn(line number, line, object) for every line that
// is not blank, in order, each parsed as parse_json does with "SOURCE:LINE" as its source and required to
// be a JSON object ("SOURCE:LINE: TYPE, expected a JSON object (one per line)").
void for_each_json_object_line(std::string_view text, const std::string& source,
                               const std::function<void(int64_t, std::string_view, const nlohmann::json&)>& fn);

// A value as it appears in an error message: compact JSON of at most about max_chars characters,
// cut with "..." (a long string shows its start, a deep array its first brackets). Never walks more
// of the value than it prints.
std::string json_preview(const nlohmann::json& value, size_t max_chars = 48);

// `text` as is when short, else its first max_chars bytes (cut at a UTF-8 boundary) + "...", with
// control bytes escaped (\n, \r, \t, \xNN) so that the message stays one line: for names and strings
// from a file that a message quotes itself.
std::string text_preview(std::string_view text, size_t max_chars = 48);

// "string \"abc\"", "number 12", "array", "object": the type and, for scalars, a preview.
std::string json_describe(const nlohmann::json& value);

}  // namespace cpuft
