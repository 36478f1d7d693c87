// CSV as datasets' csv builder reads it for run_glue's --train_file: pandas.read_csv with its defaults
// (docs/tasks.md, Data): the first non-blank line is the header, ',' separates fields, '"' quotes a
// field (which may then hold commas and line breaks; "" inside quotes is one quote; text after a
// closing quote is kept), lines end with \n, \r\n or \r, blank and whitespace-only lines are skipped,
// a leading UTF-8 byte order mark is dropped. Cells are kept as written (quotes removed, spaces kept):
// what a column's cells mean (numbers, NA) is decided by its reader (data/table_file.h).
//
// Refused, with one line naming the file, the line and what was expected: invalid UTF-8, a quote left
// open at the end of the file, a row with more or fewer fields than the header (pandas refuses the
// first and fills the second with NaN, which run_glue then cannot tokenise), a header with more than
// kMaxTableColumns fields (checked while the header is read, so a 10^6-column line costs nothing), an
// empty or repeated column name, and a file whose cells would not fit in memory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cpuft {

// Most columns a table file may have: far above any real dataset, far below what a hostile header
// could make cpuft allocate.
constexpr size_t kMaxTableColumns = 1024;

struct CsvRecord {
  int64_t line = 0;  // 1-based line of the file where the record starts
  std::vector<std::string> cells;
};

struct CsvTable {
  std::vector<std::string> header;
  std::vector<CsvRecord> records;  // every record has header.size() cells
};

// Parses CSV text; `source` names the file in errors ("train.csv:12: ...").
CsvTable parse_csv(std::string_view text, const std::string& source);

}  // namespace cpuft
