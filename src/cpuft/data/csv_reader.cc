#include "cpuft/data/csv_reader.h"

#include <algorithm>
#include <unordered_map>

#include "cpuft/text/utf8.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/memory.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

bool is_line_end(char c) { return c == '\n' || c == '\r'; }

class CsvParser {
 public:
  CsvParser(std::string_view text, const std::string& source) : text_(text), source_(source) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
  }

  // Reads the next record into `cells` (at most max_fields of them: one more ends the read with an
  // error naming `what` the limit is). False at the end of the text.
  bool next(std::vector<std::string>& cells, size_t max_fields, const char* what) {
    cells.clear();
    skip_blank_lines();
    if (pos_ >= text_.size()) return false;
    record_line_ = line_;
    while (true) {
      if (cells.size() == max_fields)
        fail(source_, ":", record_line_, ": more than ", max_fields, " fields, expected at most ", max_fields, " (",
             what, ")");
      cells.emplace_back();
      read_field(cells.back());
      if (pos_ >= text_.size()) return true;
      const char c = text_[pos_];
      if (c == ',') {
        ++pos_;
        continue;
      }
      end_line();  // c is a line end
      return true;
    }
  }

  int64_t record_line() const { return record_line_; }

 private:
  // Blank lines, and lines of spaces and tabs only, hold no record (pandas' skip_blank_lines).
  void skip_blank_lines() {
    while (pos_ < text_.size()) {
      size_t i = pos_;
      while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\t')) ++i;
      if (i < text_.size() && !is_line_end(text_[i])) return;
      pos_ = i;
      if (pos_ < text_.size()) end_line();
    }
  }

  void end_line() {
    if (text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ++pos_;
    ++pos_;
    ++line_;
  }

  void read_field(std::string& out) {
    if (pos_ < text_.size() && text_[pos_] == '"') {
      const int64_t open_line = line_;
      ++pos_;
      while (true) {
        const size_t quote = text_.find('"', pos_);
        if (quote == std::string_view::npos)
          fail(source_, ":", open_line, ": a quoted field opened on this line is not closed before the end of the file",
               ", expected a closing '\"'");
        const std::string_view part = text_.substr(pos_, quote - pos_);
        line_ += lines_in(part);
        out.append(part);
        pos_ = quote + 1;
        if (pos_ < text_.size() && text_[pos_] == '"') {  // "" inside quotes: one quote
          out.push_back('"');
          ++pos_;
          continue;
        }
        break;
      }
    }
    // Unquoted text, or text after a closing quote (pandas keeps it: "ab"cd -> abcd).
    const size_t end = std::min(text_.find_first_of(",\n\r", pos_), text_.size());
    out.append(text_.substr(pos_, end - pos_));
    pos_ = end;
  }

  // Line breaks inside a quoted field (\r\n counts once).
  static int64_t lines_in(std::string_view s) {
    int64_t n = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\n' || (s[i] == '\r' && (i + 1 >= s.size() || s[i + 1] != '\n'))) ++n;
    }
    return n;
  }

  std::string_view text_;
  const std::string& source_;
  size_t pos_ = 0;
  int64_t line_ = 1;
  int64_t record_line_ = 1;
};

int64_t line_of_byte(std::string_view text, size_t byte) {
  return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(byte, text.size())), '\n');
}

}  // namespace

CsvTable parse_csv(std::string_view text, const std::string& source) {
  const size_t valid = valid_utf8_prefix(text);
  if (valid < text.size())
    fail(source, ":", line_of_byte(text, valid), ": invalid UTF-8 at byte ", valid, ", expected UTF-8 text");
  // Every cell costs a std::string whatever it holds: refuse a file of many tiny cells before reading it.
  const uint64_t separators = static_cast<uint64_t>(std::count_if(
      text.begin(), text.end(), [](char c) { return c == ',' || c == '\n' || c == '\r'; }));
  check_fits_in_memory((separators + 1) * sizeof(std::string) + text.size(),
                       str_cat(source, ": ", format_bytes(text.size()), " of CSV with up to ", separators + 1, " cells"));

  CsvParser parser(text, source);
  CsvTable table;
  if (!parser.next(table.header, kMaxTableColumns, "the most columns a table file may have"))
    fail(source, ": no header line, expected a CSV header such as sentence1,sentence2,label");
  std::unordered_map<std::string, size_t> seen;
  for (size_t i = 0; i < table.header.size(); ++i) {
    const std::string& name = table.header[i];
    if (name.empty()) fail(source, ":", parser.record_line(), ": column ", i + 1, " has no name, expected a header name");
    auto [it, inserted] = seen.emplace(name, i);
    if (!inserted)
      fail(source, ":", parser.record_line(), ": column name '", text_preview(name), "' repeated (columns ",
           it->second + 1, " and ", i + 1, "), expected unique names");
  }
  const size_t width = table.header.size();
  std::vector<std::string> cells;
  while (parser.next(cells, width, "one per column of the header")) {
    if (cells.size() != width)
      fail(source, ":", parser.record_line(), ": ", cells.size(), cells.size() == 1 ? " field" : " fields",
           ", expected ", width, " (one per column of the header)");
    table.records.push_back({parser.record_line(), std::move(cells)});
    cells = {};
  }
  return table;
}

}  // namespace cpuft
