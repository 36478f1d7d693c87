// Reading one flag value as written on a command line or in a CPUFT_* variable: whole numbers, decimal
// numbers and boolean words, each checked against what the flag accepts. Errors are one line naming
// the flag (`who`: "--seed" or "CPUFT_THREADS"), the value found (cut when long) and what was expected.
#pragma once

#include <cstdint>
#include <string>

namespace cpuft {

// The values a number flag takes: lo..hi, each end open or closed.
struct Range {
  double lo, hi;
  bool lo_open = false, hi_open = false;
  bool contains(double d) const;
  std::string text() const;  // "[0, 1)", "(0, 10]", as --help and errors show it
};

inline Range closed(double lo, double hi) { return {lo, hi, false, false}; }
inline Range above(double lo, double hi) { return {lo, hi, true, false}; }  // (lo, hi]
inline Range below(double lo, double hi) { return {lo, hi, false, true}; }  // [lo, hi)

// "[lo, hi]" for an integer flag.
std::string integer_range_text(int64_t lo, int64_t hi);

// A whole number written in full ([+-]digits, nothing else) within [lo, hi]; otherwise
// "WHO: found 'VALUE', expected an integer in [lo, hi]".
int64_t read_integer(const std::string& value, const std::string& who, int64_t lo, int64_t hi);

// A whole number written in full; otherwise "WHO: found 'VALUE', expected EXPECTED". The range is the
// caller's (flags such as --max_steps accept -1 or a range).
int64_t read_whole(const std::string& value, const std::string& who, const std::string& expected);

// A finite decimal number ([+-]digits[.digits][e[+-]digits]: no hexadecimal, "inf", "nan" or spaces, which
// strtod would take); otherwise "WHO: found 'VALUE', expected EXPECTED".
double read_decimal(const std::string& value, const std::string& who, const std::string& expected);

// read_decimal within `range`: "WHO: found 'VALUE', expected a number in RANGE".
double read_number(const std::string& value, const std::string& who, const Range& range);

// Reads "true/True/1/yes/t/y" or "false/False/0/no/f/n" as transformers' string_to_bool does.
bool parse_bool_word(const std::string& word, bool* out);

// How --help shows a number: integers without ".0" (500, 3), other values as Python prints them (5e-05).
std::string show_number(double d);

}  // namespace cpuft
