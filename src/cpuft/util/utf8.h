// UTF-8 to code points: cpuft's one decoder (text/ tokenizes with it, util/py_json escapes with it).
// Valid means what Unicode says: no overlong forms, no surrogates, nothing above U+10FFFF.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cpuft {

// Decodes UTF-8 into code points; throws cpuft::Error "invalid UTF-8 at byte N" on malformed input
// (N counted from byte_base: utf8 may be a piece of a longer text).
std::u32string decode_utf8(std::string_view utf8, size_t byte_base = 0);

// The same for text that need not be UTF-8 (file names, command-line values): a byte that starts no
// valid sequence decodes to U+DC00 + byte, as Python decodes them ("surrogateescape"), so nothing is
// lost and json.dumps writes it as \udcXX.
std::u32string decode_utf8_escaping(std::string_view bytes);

// Length of the longest prefix of `utf8` that is valid UTF-8: utf8.size() when all of it is. For
// readers that name the line of the first bad byte.
size_t valid_utf8_prefix(std::string_view utf8);

}  // namespace cpuft
