#include "cpuft/data/text_classification_data.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/memory.h"

namespace cpuft {
namespace {

using Kind = TableCell::Kind;

const char* const kLabelColumn = "label";

// pandas' default na_values: a CSV cell that is exactly one of these is read as NaN.
bool is_pandas_na(const std::string& s) {
  static const char* const kNa[] = {"",    "#N/A", "#N/A N/A", "#NA",  "-1.#IND", "-1.#QNAN", "-NaN",
                                    "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",   "NA",       "NULL",
                                    "NaN", "None", "n/a",     "nan",  "null"};
  for (const char* na : kNa)
    if (s == na) return true;
  return false;
}

std::string_view trimmed(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string_view unsigned_part(std::string_view s) {
  return !s.empty() && (s[0] == '+' || s[0] == '-') ? s.substr(1) : s;
}

// What pandas' C parser makes of a CSV cell of a numeric column (surrounding spaces allowed).
bool looks_integer(std::string_view s) { return all_digits(unsigned_part(trimmed(s))); }

bool looks_float(std::string_view cell) {
  std::string_view s = unsigned_part(trimmed(cell));
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "inf" || lower == "infinity") return true;
  const size_t e = s.find_first_of("eE");
  const std::string_view mantissa = s.substr(0, e);
  if (e != std::string_view::npos && !all_digits(unsigned_part(s.substr(e + 1)))) return false;
  const size_t dot = mantissa.find('.');
  if (dot == std::string_view::npos) return all_digits(mantissa);
  const std::string_view whole = mantissa.substr(0, dot), frac = mantissa.substr(dot + 1);
  return (whole.empty() || all_digits(whole)) && (frac.empty() || all_digits(frac)) && !(whole.empty() && frac.empty());
}

bool csv_bool(const std::string& s, bool* value) {
  if (s == "True" || s == "true" || s == "TRUE") return *value = true, true;
  if (s == "False" || s == "false" || s == "FALSE") return *value = false, true;
  return false;
}

std::optional<int64_t> to_int64(std::string_view s) {
  s = trimmed(s);
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

double to_double(std::string_view s) {
  s = trimmed(s);
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) return s[0] == '-' ? -HUGE_VAL : HUGE_VAL;  // pandas: +-inf
  return v;
}

std::string where(const Table& t, const TableRow& row, const std::string& column) {
  return str_cat(t.path, ":", row.line, ": column '", text_preview(column), "'");
}

std::string label_name(const LabelSet& labels) {
  switch (labels.kind) {
    case LabelKind::kString: return "a string label";
    case LabelKind::kInteger: return "an integer label";
    case LabelKind::kBool: return "a True / False label";
    case LabelKind::kFloat: return "a number (regression)";
  }
  return "a label";
}

// A label cell of `table`, read as a label of kind `kind`: its name (or number for kFloat). Errors
// name the cell. `first` is the file the kind comes from (for messages).
struct LabelValue {
  std::string name;
  int64_t integer = 0;
  bool flag = false;
  double number = 0;
};

LabelValue read_label(const Table& t, const TableRow& row, int col, LabelKind kind, const std::string& kind_source) {
  const TableCell& cell = row.cells[col];
  const std::string at = where(t, row, kLabelColumn);
  if (cell.kind == Kind::kMissing || cell.kind == Kind::kNull || (t.csv && is_pandas_na(cell.text)))
    fail(at, ": no label (", t.csv ? str_cat("\"", text_preview(cell.text), "\", which pandas reads as NaN")
                                   : describe_cell(cell),
         "), expected a label on every row");
  auto wrong = [&]() {
    fail(at, ": ", describe_cell(cell), ", expected ", label_name(LabelSet{kind, {}, {}}), " like those of ",
         kind_source);
  };
  LabelValue v;
  switch (kind) {
    case LabelKind::kString:
      if (cell.kind != Kind::kText && cell.kind != Kind::kInteger) wrong();  // datasets casts integers to strings
      v.name = cell.text;
      return v;
    case LabelKind::kInteger: {
      if (t.csv ? !looks_integer(cell.text) : cell.kind != Kind::kInteger) wrong();
      const std::optional<int64_t> i = to_int64(cell.text);
      if (!i) fail(at, ": ", describe_cell(cell), " is out of range, expected a 64-bit integer label");
      v.integer = *i;
      v.name = std::to_string(*i);
      return v;
    }
    case LabelKind::kBool:
      if (t.csv ? !csv_bool(cell.text, &v.flag) : cell.kind != Kind::kBool) wrong();
      if (!t.csv) v.flag = cell.text == "true";
      v.name = v.flag ? "True" : "False";
      return v;
    case LabelKind::kFloat:
      if (t.csv ? !looks_float(cell.text) : cell.kind != Kind::kInteger && cell.kind != Kind::kFloat) wrong();
      v.number = t.csv ? to_double(cell.text) : cell.number;
      if (!std::isfinite(v.number)) fail(at, ": ", describe_cell(cell), ", expected a finite regression label");
      return v;
  }
  return v;
}

LabelKind csv_label_kind(const Table& t, int col) {
  bool all_int = true, all_number = true, all_bool = true;
  for (const TableRow& row : t.rows) {
    const std::string& s = row.cells[col].text;
    if (is_pandas_na(s))
      fail(where(t, row, kLabelColumn), ": no label (\"", text_preview(s),
           "\", which pandas reads as NaN), expected a label on every row");
    bool b = false;
    all_int = all_int && looks_integer(s);
    all_number = all_number && looks_float(s);
    all_bool = all_bool && csv_bool(s, &b);
  }
  return all_int ? LabelKind::kInteger : all_number ? LabelKind::kFloat : all_bool ? LabelKind::kBool : LabelKind::kString;
}

LabelKind json_label_kind(const Table& t, int col) {
  std::map<Kind, const TableRow*> first_of;  // the first row of each cell kind
  for (const TableRow& row : t.rows) {
    const TableCell& c = row.cells[col];
    if (c.kind == Kind::kMissing || c.kind == Kind::kNull || c.kind == Kind::kNested)
      fail(where(t, row, kLabelColumn), ": ", describe_cell(c), ", expected a label (string, integer, number or "
           "true/false) on every row");
    first_of.emplace(c.kind, &row);
  }
  auto only = [&](std::initializer_list<Kind> kinds) {
    for (const auto& [kind, row] : first_of)
      if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) return false;
    return true;
  };
  if (first_of.size() <= 1 || only({Kind::kInteger, Kind::kFloat})) {
    if (first_of.count(Kind::kFloat)) return LabelKind::kFloat;
    if (first_of.count(Kind::kInteger)) return LabelKind::kInteger;
    if (first_of.count(Kind::kBool)) return LabelKind::kBool;
    return LabelKind::kString;
  }
  const TableRow* a = first_of.begin()->second;
  const TableRow* b = std::next(first_of.begin())->second;
  if (a->line > b->line) std::swap(a, b);
  fail(t.path, ": column 'label' mixes types: line ", a->line, " has ", describe_cell(a->cells[col]), ", line ", b->line,
       " has ", describe_cell(b->cells[col]), "; expected labels of one type (all strings, all integers, or all numbers "
       "for regression)");
}

std::string text_cell(const Table& t, const TableRow& row, int col, const std::string& column) {
  const TableCell& c = row.cells[col];
  if (t.csv) {
    if (is_pandas_na(c.text))
      fail(where(t, row, column), ": ", c.text.empty() ? "empty" : str_cat("\"", c.text, "\""),
           ", which pandas reads as NaN and run_glue cannot tokenise; expected text");
    return c.text;
  }
  if (c.kind != Kind::kText) fail(where(t, row, column), ": ", describe_cell(c), ", expected a string");
  return c.text;
}

int required_column(const Table& t, const std::string& name, const char* why) {
  const int col = t.column(name);
  if (col < 0) {
    std::string have;
    for (const std::string& c : t.columns) have += (have.empty() ? "" : ", ") + c;
    fail(t.path, ": no column '", text_preview(name), "' (", why, "); the file has ", text_preview(have, 120));
  }
  return col;
}

}  // namespace

TextColumns choose_text_columns(const Table& train) {
  std::vector<std::string> non_label;
  for (const std::string& c : train.columns)
    if (c != kLabelColumn) non_label.push_back(c);
  auto has = [&](const char* name) { return std::find(non_label.begin(), non_label.end(), name) != non_label.end(); };
  if (has("sentence1") && has("sentence2")) return {"sentence1", "sentence2"};
  if (non_label.size() >= 2) return {non_label[0], non_label[1]};
  if (non_label.size() == 1) return {non_label[0], ""};
  fail(train.path, ": no text column, expected a column besides 'label' (sentence1 and sentence2, or one or two "
       "text columns)");
}

LabelSet read_label_set(const Table& train) {
  const int col = required_column(train, kLabelColumn, "run_glue takes the labels from the column 'label'");
  if (train.rows.empty()) fail(train.path, ": no rows, expected at least one training example");
  LabelSet set;
  set.kind = train.csv ? csv_label_kind(train, col) : json_label_kind(train, col);
  if (set.regression()) {
    for (const TableRow& row : train.rows) read_label(train, row, col, set.kind, train.path);  // finite
    return set;
  }
  std::map<std::string, const TableRow*> strings;
  std::map<int64_t, const TableRow*> integers;
  std::map<bool, const TableRow*> flags;
  for (const TableRow& row : train.rows) {
    const LabelValue v = read_label(train, row, col, set.kind, train.path);
    if (set.kind == LabelKind::kInteger && v.integer == -1)
      fail(where(train, row, kLabelColumn), ": -1, which run_glue keeps as -1 (its mark for an unlabelled row) and "
           "cannot train on; expected a class label");
    if (set.kind == LabelKind::kString) strings.emplace(v.name, &row);
    if (set.kind == LabelKind::kInteger) integers.emplace(v.integer, &row);
    if (set.kind == LabelKind::kBool) flags.emplace(v.flag, &row);
  }
  for (const auto& [s, row] : strings) set.names.push_back(s), set.values.emplace_back(s);  // byte order = code points
  for (const auto& [i, row] : integers) set.names.push_back(std::to_string(i)), set.values.emplace_back(i);
  for (const auto& [b, row] : flags) set.names.push_back(b ? "True" : "False"), set.values.emplace_back(b);
  return set;
}

std::vector<TextExample> text_examples(const Table& table, const TextColumns& columns, const LabelSet& labels,
                                       Split split) {
  const char* why = "the text column run_glue picked from the training file";
  const int a = required_column(table, columns.sentence1, why);
  const int b = columns.sentence2.empty() ? -1 : required_column(table, columns.sentence2, why);
  const int col = split == Split::kTest ? -1
                                        : required_column(table, kLabelColumn, "run_glue scores the column 'label'");
  std::map<std::string, int32_t> id_of;
  for (size_t i = 0; i < labels.names.size(); ++i) id_of.emplace(labels.names[i], static_cast<int32_t>(i));
  check_fits_in_memory(static_cast<uint64_t>(table.rows.size()) * sizeof(TextExample),
                       str_cat(table.path, ": ", table.rows.size(), " examples"));
  std::vector<TextExample> out;
  out.reserve(table.rows.size());
  for (const TableRow& row : table.rows) {
    TextExample ex;
    ex.line = row.line;
    ex.text_a = text_cell(table, row, a, columns.sentence1);
    if (b >= 0) ex.text_b = text_cell(table, row, b, columns.sentence2);
    if (col >= 0) {
      const LabelValue v = read_label(table, row, col, labels.kind, "the training file");
      if (labels.regression()) {
        ex.target = static_cast<float>(v.number);
      } else {
        auto it = id_of.find(v.name);
        if (it == id_of.end()) {
          std::string known;
          for (const std::string& n : labels.names) known += (known.empty() ? "" : ", ") + n;
          fail(where(table, row, kLabelColumn), ": label \"", text_preview(v.name), "\" is not one of the ",
               labels.names.size(), " labels of the training file (", text_preview(known, 120),
               "); run_glue stops on it with a KeyError");
        }
        ex.label = it->second;
      }
    }
    out.push_back(std::move(ex));
  }
  return out;
}

nlohmann::json config_label2id(const LabelSet& labels) {
  nlohmann::json out = nlohmann::json::object();
  if (labels.regression()) {
    out["LABEL_0"] = 0;
    return out;
  }
  for (size_t i = 0; i < labels.names.size(); ++i) {
    const nlohmann::json& v = labels.values[i];
    out[v.is_string() ? v.get<std::string>() : v.dump()] = i;  // json.dumps writes True as "true", 3 as "3"
  }
  return out;
}

nlohmann::json config_id2label(const LabelSet& labels) {
  nlohmann::json out = nlohmann::json::object();
  if (labels.regression()) {
    out["0"] = "LABEL_0";
    return out;
  }
  for (size_t i = 0; i < labels.values.size(); ++i) out[std::to_string(i)] = labels.values[i];
  return out;
}

}  // namespace cpuft
