// libFuzzer target: a run_glue --train_file as CSV and as JSON lines (the first byte chooses) -> the
// table, run_glue's columns, label set and examples. Bad input must end in one short cpuft::Error line;
// accepted input gives at most one row per line and label ids inside the label list.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cpuft/data/table_file.h"
#include "cpuft/data/text_classification_data.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool csv = data[0] & 1;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const cpuft::Table t = csv ? cpuft::parse_csv_table(text, "fuzz.csv") : cpuft::parse_json_lines_table(text, "fuzz.json");
    // CSV ends lines at \r too (JSON lines only at \n): at most one row per line end, plus the last line.
    const size_t lines = static_cast<size_t>(std::count_if(text.begin(), text.end(),
                                                           [](char c) { return c == '\n' || c == '\r'; })) + 1;
    if (t.rows.size() > lines || t.columns.size() > cpuft::kMaxTableColumns) std::abort();
    for (const cpuft::TableRow& r : t.rows)
      if (r.cells.size() != t.columns.size()) std::abort();
    const cpuft::TextColumns columns = cpuft::choose_text_columns(t);
    const cpuft::LabelSet labels = cpuft::read_label_set(t);
    for (const cpuft::TextExample& ex : cpuft::text_examples(t, columns, labels, cpuft::Split::kValidation))
      if (!labels.regression() && (ex.label < 0 || ex.label >= labels.num_labels())) std::abort();
    cpuft::config_label2id(labels).dump();
  } catch (const cpuft::Error& e) {
    cpuft_fuzz::check_error(e);
  }
  return 0;
}
