#include "cpuft/util/json_read.h"

#include <algorithm>
#include <set>
#include <vector>

#include "cpuft/util/error.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

using json = nlohmann::json;

constexpr size_t kMaxDetail = 160;  // characters of the parser's own message kept in ours

// Offset of the bracket that opens nesting level max_depth + 1, or npos. Counts brackets outside
// strings; the parser reports any other malformation afterwards.
size_t too_deep_at(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

// "byte B (line L, column C)" for the 1-based byte offset B.
std::string position(std::string_view text, size_t byte) {
  const size_t offset = std::min(byte > 0 ? byte - 1 : 0, text.size());
  const std::string_view before = text.substr(0, offset);
  const size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
  const size_t last_newline = before.rfind('\n');
  const size_t column = offset - (last_newline == std::string_view::npos ? 0 : last_newline + 1) + 1;
  return str_cat("byte ", byte, " (line ", line, ", column ", column, ")");
}

// nlohmann's message without its "[json.exception.x.N] " tag and, for parse errors, without the
// position it states itself; cut to kMaxDetail characters ("last read" can quote a long token).
std::string parser_detail(const char* what) {
  std::string s = what;
  if (s.rfind("[json.exception.", 0) == 0) {
    const size_t close = s.find("] ");
    if (close != std::string::npos) s.erase(0, close + 2);
  }
  if (s.rfind("parse error at line ", 0) == 0) {
    const size_t colon = s.find(": ");
    if (colon != std::string::npos) s.erase(0, colon + 2);
  }
  if (s.size() > kMaxDetail) s = s.substr(0, kMaxDetail - 3) + "...";
  return s;
}

class Preview {
 public:
  explicit Preview(size_t limit) : limit_(std::max<size_t>(limit, 8)) {}

  std::string take(const json& v) {
    value(v);
    if (out_.size() > limit_) out_ = out_.substr(0, limit_ - 3) + "...";
    return out_;
  }

 private:
  bool full() const { return out_.size() > limit_; }
  void put(std::string_view s) {
    if (!full()) out_.append(s.substr(0, limit_ + 1 - out_.size()));
  }
  void string(const std::string& s) {
    // Escape only the start of a long string; the cut may split a UTF-8 sequence, which dump replaces.
    const size_t take = std::min(s.size(), limit_ + 1);
    put(json(s.substr(0, take)).dump(-1, ' ', true, json::error_handler_t::replace));
  }
  void value(const json& v) {
    if (full()) return;
    switch (v.type()) {
      case json::value_t::array: {
        put("[");
        bool first = true;
        for (const json& item : v) {
          if (full()) return;
          if (!first) put(",");
          first = false;
          value(item);
        }
        put("]");
        return;
      }
      case json::value_t::object: {
        put("{");
        bool first = true;
        for (auto it = v.begin(); it != v.end(); ++it) {
          if (full()) return;
          if (!first) put(",");
          first = false;
          string(it.key());
          put(":");
          value(it.value());
        }
        put("}");
        return;
      }
      case json::value_t::string: string(v.get_ref<const std::string&>()); return;
      default: put(v.dump()); return;  // numbers, booleans, null: a few characters
    }
  }

  const size_t limit_;
  std::string out_;
};

}  // namespace

json parse_json(std::string_view text, const std::string& source, const JsonReadOptions& options) {
  const std::string expected = options.expected ? str_cat("; expected ", options.expected) : std::string();
  const size_t deep = too_deep_at(text, options.max_depth);
  if (deep != std::string_view::npos)
    fail(source, ": nested deeper than ", options.max_depth, " levels at ", position(text, deep + 1), expected);
  try {
    if (!options.reject_duplicate_keys) return json::parse(text.begin(), text.end());
    std::vector<std::set<std::string>> open_objects;
    auto check = [&](int, json::parse_event_t event, json& parsed) {
      if (event == json::parse_event_t::object_start) {
        open_objects.emplace_back();
      } else if (event == json::parse_event_t::object_end) {
        open_objects.pop_back();
      } else if (event == json::parse_event_t::key) {
        const std::string& key = parsed.get_ref<const std::string&>();
        if (!open_objects.back().insert(key).second) fail(source, ": duplicate key '", text_preview(key), "'", expected);
      }
      return true;
    };
    return json::parse(text.begin(), text.end(), check);
  } catch (const json::parse_error& e) {
    fail(source, ": not valid JSON at ", position(text, e.byte), ": ", parser_detail(e.what()), expected);
  } catch (const json::exception& e) {  // out_of_range 406: a number no double holds (1E400)
    fail(source, ": not valid JSON (", parser_detail(e.what()), ")", expected);
  }
}

json read_json_file(const std::string& path, uint64_t max_bytes, const JsonReadOptions& options) {
  return parse_json(read_file(path, max_bytes), path, options);
}

void for_each_json_object_line(std::string_view text, const std::string& source,
                               const std::function<void(int64_t, std::string_view, const json&)>& fn) {
  JsonReadOptions options;
  options.expected = "one JSON object per line";
  size_t pos = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  for (int64_t n = 1; pos < text.size(); ++n) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = str_cat(source, ":", n);
    const json j = parse_json(line, where, options);
    if (!j.is_object()) fail(where, ": ", json_describe(j), ", expected a JSON object (one per line)");
    fn(n, line, j);
  }
}

std::string json_preview(const json& value, size_t max_chars) { return Preview(max_chars).take(value); }

std::string text_preview(std::string_view text, size_t max_chars) {
  size_t cut = text.size();
  if (cut > max_chars) {
    cut = max_chars;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  }
  std::string out = one_line(text.substr(0, cut));  // control bytes escaped: the message stays one line
  if (cut < text.size()) out += "...";
  return out;
}

std::string json_describe(const json& value) {
  if (value.is_structured()) return value.type_name();
  return std::string(value.type_name()) + " " + json_preview(value);
}

}  // namespace cpuft
