#include "cpuft/eval/prediction_files.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cpuft/text/utf8.h"
#include "cpuft/util/atomic_file.h"
#include "cpuft/util/error.h"

namespace cpuft {

std::string python_float_repr(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x == 0.0) return std::signbit(x) ? "-0.0" : "0.0";
  // Shortest round-trip digits d1.d2...dn e X; Python places the point at decpt = X + 1.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(x), std::chars_format::scientific);
  const std::string sci(buf, res.ptr);
  const size_t e = sci.find('e');
  std::string digits = sci.substr(0, 1) + (e > 1 ? sci.substr(2, e - 2) : "");
  const int decpt = std::atoi(sci.c_str() + e + 1) + 1;
  const int n = static_cast<int>(digits.size());
  std::string out = x < 0 ? "-" : "";
  if (decpt <= -4 || decpt > 16) {
    out += digits.substr(0, 1);
    if (n > 1) out += "." + digits.substr(1);
    const int exp = decpt - 1;
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    return out + ebuf;
  }
  if (decpt <= 0) return out + "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
  if (decpt < n) return out + digits.substr(0, static_cast<size_t>(decpt)) + "." + digits.substr(static_cast<size_t>(decpt));
  return out + digits + std::string(static_cast<size_t>(decpt - n), '0') + ".0";
}

std::string python_json_string(std::string_view s) {
  std::string out = "\"";
  char buf[16];
  for (const char32_t cp : decode_utf8(s)) {
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
    if (cp >= 0x20 && cp < 0x7F) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x10000) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
    } else {
      const unsigned v = static_cast<unsigned>(cp) - 0x10000;
      std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
      out += buf;
    }
  }
  return out + "\"";
}

namespace {

// json.dumps(dict, indent=4) of a dict whose values are already rendered at nesting depth 1.
std::string dump_object(const std::vector<ExamplePrediction>& predictions,
                        std::string (*value)(const ExamplePrediction&)) {
  if (predictions.empty()) return "{}\n";
  std::string out = "{\n";
  for (size_t i = 0; i < predictions.size(); ++i) {
    out += "    " + python_json_string(predictions[i].id) + ": " + value(predictions[i]);
    out += i + 1 < predictions.size() ? ",\n" : "\n";
  }
  return out + "}\n";
}

std::string nbest_list(const ExamplePrediction& p) {
  if (p.nbest.empty()) return "[]";
  std::string out = "[\n";
  for (size_t i = 0; i < p.nbest.size(); ++i) {
    const NbestEntry& e = p.nbest[i];
    const std::string text = "            \"text\": " + python_json_string(e.text);
    const std::string start = "            \"start_logit\": " + python_float_repr(e.start_logit);
    const std::string end = "            \"end_logit\": " + python_float_repr(e.end_logit);
    out += "        {\n";
    out += e.is_dummy ? text + ",\n" + start + ",\n" + end + ",\n" : start + ",\n" + end + ",\n" + text + ",\n";
    out += "            \"probability\": " + python_float_repr(e.probability) + "\n";
    out += i + 1 < p.nbest.size() ? "        },\n" : "        }\n";
  }
  return out + "    ]";
}

}  // namespace

std::string predictions_json(const std::vector<ExamplePrediction>& predictions) {
  return dump_object(predictions, [](const ExamplePrediction& p) { return python_json_string(p.text); });
}

std::string nbest_json(const std::vector<ExamplePrediction>& predictions) {
  return dump_object(predictions, nbest_list);
}

std::string null_odds_json(const std::vector<ExamplePrediction>& predictions) {
  return dump_object(predictions, [](const ExamplePrediction& p) { return python_float_repr(p.null_score_diff); });
}

void write_prediction_files(const std::string& output_dir, const std::vector<ExamplePrediction>& predictions,
                            bool version_2_with_negative, const std::string& prefix) {
  const std::string base = output_dir + "/" + (prefix.empty() ? "" : prefix + "_");
  write_file_atomic(base + "predictions.json", predictions_json(predictions));
  write_file_atomic(base + "nbest_predictions.json", nbest_json(predictions));
  if (version_2_with_negative) write_file_atomic(base + "null_odds.json", null_odds_json(predictions));
}

}  // namespace cpuft
