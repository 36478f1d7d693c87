// UTF-8 <-> code points. Offsets everywhere in cpuft's text pipeline are code-point indices, as
// Python strings (and so Hugging Face offsets and SQuAD answer_start) count characters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cpuft {

// Decodes UTF-8 into code points; throws cpuft::Error "invalid UTF-8 at byte N" on malformed input
// (N counted from byte_base: utf8 may be a piece of a longer text).
std::u32string decode_utf8(std::string_view utf8, size_t byte_base = 0);

// Length of the longest prefix of `utf8` that is valid UTF-8: utf8.size() when all of it is. For
// readers that name the line of the first bad byte.
size_t valid_utf8_prefix(std::string_view utf8);

// Appends the UTF-8 encoding of code point `cp` to `out`.
void append_utf8(char32_t cp, std::string& out);

// Number of code points in valid UTF-8 (counts the bytes that do not start with 10xxxxxx).
size_t count_code_points(std::string_view utf8);

// Byte offset of every code point of valid UTF-8, plus utf8.size() at the end, so that code points
// [b, e) are the bytes [result[b], result[e]).
std::vector<size_t> code_point_byte_offsets(std::string_view utf8);

// The bytes of code points [begin, end) of valid UTF-8 (clamped to the string).
std::string_view utf8_slice(std::string_view utf8, int64_t begin, int64_t end);

}  // namespace cpuft
