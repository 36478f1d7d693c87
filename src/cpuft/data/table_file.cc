#include "cpuft/data/table_file.h"

#include <nlohmann/json.hpp>

#include <unordered_map>
#include <utility>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/memory.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

using Kind = TableCell::Kind;

TableCell cell_of(const nlohmann::json& v) {
  TableCell c;
  switch (v.type()) {
    case nlohmann::json::value_t::string:
      c.kind = Kind::kText;
      c.text = v.get<std::string>();
      break;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      c.kind = Kind::kInteger;
      c.text = v.dump();
      c.number = v.get<double>();
      break;
    case nlohmann::json::value_t::number_float:
      c.kind = Kind::kFloat;
      c.text = v.dump();
      c.number = v.get<double>();
      break;
    case nlohmann::json::value_t::boolean:
      c.kind = Kind::kBool;
      c.text = v.get<bool>() ? "true" : "false";
      break;
    case nlohmann::json::value_t::null: c.kind = Kind::kNull; break;
    default:
      c.kind = Kind::kNested;
      c.text = json_preview(v);
      break;
  }
  return c;
}

// Checks, every so many rows, that the cells read so far (and the text) fit in memory.
class MemoryGuard {
 public:
  MemoryGuard(const std::string& source, size_t text_bytes) : source_(source), text_bytes_(text_bytes) {}
  void add(size_t cells) {
    cells_ += cells;
    if (++rows_ % 4096 == 0)
      check_fits_in_memory(cells_ * sizeof(TableCell) + 2 * text_bytes_,
                           str_cat(source_, ": ", rows_, " rows of ", cells_ / rows_, " cells"));
  }

 private:
  const std::string& source_;
  size_t text_bytes_;
  uint64_t cells_ = 0;
  uint64_t rows_ = 0;
};

}  // namespace

int Table::column(const std::string& name) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return static_cast<int>(i);
  return -1;
}

bool is_csv_path(const std::string& path) { return path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0; }

Table parse_csv_table(std::string_view text, const std::string& source) {
  CsvTable csv = parse_csv(text, source);
  Table t;
  t.path = source;
  t.csv = true;
  t.columns = std::move(csv.header);
  t.rows.reserve(csv.records.size());
  for (CsvRecord& r : csv.records) {
    TableRow row;
    row.line = r.line;
    row.cells.resize(r.cells.size());
    for (size_t i = 0; i < r.cells.size(); ++i) {
      row.cells[i].kind = Kind::kText;
      row.cells[i].text = std::move(r.cells[i]);
    }
    t.rows.push_back(std::move(row));
    r.cells = {};
  }
  return t;
}

Table parse_json_lines_table(std::string_view text, const std::string& source) {
  Table t;
  t.path = source;
  std::unordered_map<std::string, size_t> index;  // column name -> position
  MemoryGuard guard(source, text.size());
  for_each_json_object_line(text, source, [&](int64_t n, std::string_view line, const nlohmann::json& j) {
    TableRow row;
    row.line = n;
    row.cells.resize(t.columns.size());
    // The keys in the order the line writes them (nlohmann::json sorts them); the line is known valid.
    const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(line.begin(), line.end());
    for (const auto& item : ordered.items()) {
      auto [it, inserted] = index.emplace(item.key(), t.columns.size());
      if (inserted) {
        if (t.columns.size() == kMaxTableColumns)
          fail(source, ":", n, ": key '", text_preview(item.key()), "' makes more than ", kMaxTableColumns,
               " columns, expected at most ", kMaxTableColumns, " distinct keys in the file");
        t.columns.push_back(item.key());
        row.cells.emplace_back();
      }
      row.cells[it->second] = cell_of(j.at(item.key()));
    }
    guard.add(row.cells.size());
    t.rows.push_back(std::move(row));
  });
  check_fits_in_memory(static_cast<uint64_t>(t.rows.size()) * t.columns.size() * sizeof(TableCell) + 2 * text.size(),
                       str_cat(source, ": ", t.rows.size(), " rows of ", t.columns.size(), " columns"));
  for (TableRow& row : t.rows) row.cells.resize(t.columns.size());  // later keys: missing in earlier rows
  return t;
}

Table read_table(const std::string& path) {
  const std::string text = read_file(path, kMaxDatasetBytes);
  return is_csv_path(path) ? parse_csv_table(text, path) : parse_json_lines_table(text, path);
}

std::string describe_cell(const TableCell& cell) {
  switch (cell.kind) {
    case Kind::kText: return str_cat("\"", text_preview(cell.text), "\"");
    case Kind::kInteger: return "the integer " + cell.text;
    case Kind::kFloat: return "the number " + cell.text;
    case Kind::kBool: return cell.text;
    case Kind::kNull: return "null";
    case Kind::kMissing: return "nothing (the key is missing)";
    case Kind::kNested: return "the JSON value " + cell.text;
  }
  return "?";
}

}  // namespace cpuft
