// JSON text byte-identical to Python's json.dumps(obj, indent=N, sort_keys=True) (ensure_ascii on),
// so that trainer_state.json and *_results.json match what transformers writes. nlohmann's own dump
// differs in float formatting (1e+15 vs 1000000000000000.0) and in non-ASCII escaping.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace cpuft {

// Python's repr(float): the shortest digits that round-trip, fixed notation for exponents -4..15
// (0.0001, 1.0, 1000000000000000.0), scientific otherwise (5e-05, 1e+16); NaN, Infinity, -Infinity.
std::string py_float_repr(double x);

// Python's round(x, ndigits) for floats: the exactly-rounded decimal value, read back as a double.
double py_round(double x, int ndigits);

// json.dumps(str) (ensure_ascii: \uXXXX in lower-case hex, surrogate pairs above U+FFFF), quotes
// included. Bytes that are not UTF-8 (a file name) are written as Python writes a str decoded with
// "surrogateescape": \udcXX (util/utf8.h).
std::string py_json_string(std::string_view s);

// json.dumps(value, indent=indent, sort_keys=True). Integers print as integers, floats as
// py_float_repr. Object keys sort by code point (nlohmann objects are byte-ordered maps, which is the
// same order for UTF-8). No trailing newline.
std::string py_json_dumps(const nlohmann::json& value, int indent);

}  // namespace cpuft
