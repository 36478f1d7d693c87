// A --train_file / --validation_file / --test_file of run_glue as a table: CSV (data/csv_reader.h) or
// JSON lines (one object per line, blank lines skipped), chosen by the extension as run_glue chooses its
// loader (.csv, else JSON). Columns are in the order datasets gives them: the CSV header, or for JSON
// the keys in order of first appearance. Cells keep what the file says about their type, which decides
// how run_glue reads a label column (data/text_classification_data.h).
//
// Errors are one line naming the file and line: invalid JSON (with the parser's position), a line that is
// not an object, more than kMaxTableColumns distinct keys, and everything data/csv_reader.h refuses.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cpuft/data/csv_reader.h"

namespace cpuft {

struct TableCell {
  enum class Kind : uint8_t {
    kText,     // a CSV cell (always), a JSON string
    kInteger,  // a JSON integer
    kFloat,    // a JSON number with a fraction or exponent
    kBool,     // a JSON true / false
    kNull,     // a JSON null
    kMissing,  // a JSON line without this key
    kNested,   // a JSON array or object
  };
  Kind kind = Kind::kMissing;
  std::string text;   // kText: the text; numbers and booleans: as JSON writes them; kNested: a short preview
  double number = 0;  // kInteger, kFloat
};

struct TableRow {
  int64_t line = 0;  // 1-based line of the file where the row starts
  std::vector<TableCell> cells;  // one per column
};

struct Table {
  std::string path;
  bool csv = false;
  std::vector<std::string> columns;
  std::vector<TableRow> rows;

  // Index of the column `name`, or -1.
  int column(const std::string& name) const;
};

// True for a path ending in .csv; anything else is read as JSON lines (as run_glue loads it).
bool is_csv_path(const std::string& path);

Table parse_csv_table(std::string_view text, const std::string& source);
Table parse_json_lines_table(std::string_view text, const std::string& source);

// Reads `path` (at most kMaxDatasetBytes) as CSV or JSON lines by its extension.
Table read_table(const std::string& path);

// "a string \"pos\"", "an integer 3", "null", "no value (the key is missing)": a cell for messages.
std::string describe_cell(const TableCell& cell);

}  // namespace cpuft
