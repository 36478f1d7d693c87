#include "cpuft/util/py_json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cpuft/util/utf8.h"

namespace cpuft {

namespace {

// The shortest digits that read back as exactly x, the nearest to x among them (std::to_chars's
// scientific form "d.ddde[+-]XX", as Python's repr chooses them; x > 0 here); fills digits (no dot)
// and the decimal exponent of the first digit.
void shortest_digits(double x, std::string* digits, int* exp10) {
  char buf[40];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  *r.ptr = '\0';
  const char* e = std::strchr(buf, 'e');
  digits->clear();
  for (const char* p = buf; p < e; ++p)
    if (*p != '.') digits->push_back(*p);
  *exp10 = std::atoi(e + 1);
}

void dump(std::string* out, const nlohmann::json& v, int indent, int depth) {
  using T = nlohmann::json::value_t;
  auto newline = [&](int d) {
    out->push_back('\n');
    out->append(static_cast<size_t>(indent * d), ' ');
  };
  switch (v.type()) {
    case T::null: *out += "null"; return;
    case T::boolean: *out += v.get<bool>() ? "true" : "false"; return;
    case T::number_integer: *out += std::to_string(v.get<int64_t>()); return;
    case T::number_unsigned: *out += std::to_string(v.get<uint64_t>()); return;
    case T::number_float: *out += py_float_repr(v.get<double>()); return;
    case T::string: *out += py_json_string(v.get_ref<const std::string&>()); return;
    case T::array: {
      if (v.empty()) {
        *out += "[]";
        return;
      }
      out->push_back('[');
      bool first = true;
      for (const auto& item : v) {
        if (!first) out->push_back(',');
        first = false;
        newline(depth + 1);
        dump(out, item, indent, depth + 1);
      }
      newline(depth);
      out->push_back(']');
      return;
    }
    case T::object: {
      if (v.empty()) {
        *out += "{}";
        return;
      }
      out->push_back('{');
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) out->push_back(',');
        first = false;
        newline(depth + 1);
        *out += py_json_string(it.key());
        *out += ": ";
        dump(out, it.value(), indent, depth + 1);
      }
      newline(depth);
      out->push_back('}');
      return;
    }
    default: *out += "null"; return;  // binary / discarded values never come from our writers
  }
}

}  // namespace

std::string py_json_string(std::string_view s) {
  std::string out = "\"";
  char buf[16];
  for (const char32_t cp : decode_utf8_escaping(s)) {
    switch (cp) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      default: break;
    }
    if (cp >= 0x20 && cp <= 0x7E) {
      out.push_back(static_cast<char>(cp));
    } else if (cp > 0xFFFF) {
      const unsigned v = static_cast<unsigned>(cp) - 0x10000;
      std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
      out += buf;
    } else {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
    }
  }
  return out + "\"";
}

std::string py_float_repr(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  std::string sign = x < 0 ? "-" : "";
  std::string digits;
  int exp10 = 0;
  shortest_digits(std::fabs(x), &digits, &exp10);
  int decpt = exp10 + 1;  // digits are 0.d1d2... x 10^decpt, as Python's float formatting counts
  const int n = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {
    std::string mant = digits.substr(0, 1);
    if (n > 1) mant += "." + digits.substr(1);
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    return sign + mant + ebuf;
  }
  if (decpt <= 0) return sign + "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
  if (decpt >= n) return sign + digits + std::string(static_cast<size_t>(decpt - n), '0') + ".0";
  return sign + digits.substr(0, static_cast<size_t>(decpt)) + "." + digits.substr(static_cast<size_t>(decpt));
}

double py_round(double x, int ndigits) {
  if (!std::isfinite(x)) return x;
  char buf[400];
  // glibc's printf rounds the exact binary value correctly (ties to even), as Python's dtoa does.
  std::snprintf(buf, sizeof buf, "%.*f", ndigits, x);
  return std::strtod(buf, nullptr);
}

std::string py_json_dumps(const nlohmann::json& value, int indent) {
  std::string out;
  dump(&out, value, indent, 0);
  return out;
}

}  // namespace cpuft
