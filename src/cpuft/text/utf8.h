// UTF-8 and code points in the text pipeline: offsets everywhere in it are code-point indices, as
// Python strings (and so Hugging Face offsets and SQuAD answer_start) count characters. Decoding is
// util/utf8.h's (decode_utf8), included here for the pipeline's files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cpuft/util/utf8.h"

namespace cpuft {

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
