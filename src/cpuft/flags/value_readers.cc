#include "cpuft/flags/value_readers.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/py_json.h"

namespace cpuft {

namespace {

// A decimal number as written by people and scripts: [+-]digits[.digits][e[+-]digits]. strtod also
// takes hexadecimal ("0x10" read as 16), "inf", "nan" and leading spaces, none of which is a value
// a flag should mean.
bool is_decimal(const std::string& v) {
  size_t i = 0;
  if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
  size_t digits = 0;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i, ++digits;
  if (i < v.size() && v[i] == '.') {
    ++i;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    ++i;
    if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == v.size();
}

bool is_whole(const std::string& v) {
  size_t i = v.size() > 0 && (v[0] == '-' || v[0] == '+') ? 1 : 0;
  if (i == v.size()) return false;
  for (; i < v.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(v[i]))) return false;
  return true;
}

}  // namespace

bool Range::contains(double d) const {
  return (lo_open ? d > lo : d >= lo) && (hi_open ? d < hi : d <= hi);
}

std::string Range::text() const {
  return str_cat(lo_open ? "(" : "[", show_number(lo), ", ", show_number(hi), hi_open ? ")" : "]");
}

std::string integer_range_text(int64_t lo, int64_t hi) { return str_cat("[", lo, ", ", hi, "]"); }

int64_t read_whole(const std::string& v, const std::string& who, const std::string& expected) {
  errno = 0;
  const long long n = is_whole(v) ? std::strtoll(v.c_str(), nullptr, 10) : 0;
  if (!is_whole(v) || errno == ERANGE) fail(who, ": found '", text_preview(v), "', expected ", expected);
  return n;
}

int64_t read_integer(const std::string& v, const std::string& who, int64_t lo, int64_t hi) {
  const std::string expected = "an integer in " + integer_range_text(lo, hi);
  const int64_t n = read_whole(v, who, expected);
  if (n < lo || n > hi) fail(who, ": found '", text_preview(v), "', expected ", expected);
  return n;
}

double read_decimal(const std::string& v, const std::string& who, const std::string& expected) {
  errno = 0;
  const double d = is_decimal(v) ? std::strtod(v.c_str(), nullptr) : NAN;
  if (!std::isfinite(d) || errno == ERANGE) fail(who, ": found '", text_preview(v), "', expected ", expected);
  return d;
}

double read_number(const std::string& v, const std::string& who, const Range& range) {
  const std::string expected = "a number in " + range.text();
  const double d = read_decimal(v, who, expected);
  if (!range.contains(d)) fail(who, ": found '", text_preview(v), "', expected ", expected);
  return d;
}

bool parse_bool_word(const std::string& word, bool* out) {
  std::string w;
  for (char c : word) w.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (w == "true" || w == "1" || w == "yes" || w == "t" || w == "y") {
    *out = true;
    return true;
  }
  if (w == "false" || w == "0" || w == "no" || w == "f" || w == "n") {
    *out = false;
    return true;
  }
  return false;
}

std::string show_number(double d) {
  if (d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<long long>(d));
  return py_float_repr(d);
}

}  // namespace cpuft
