#include "cpuft/flags/flag_table.h"

#include <algorithm>
#include <stdexcept>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {

Flag& Flag::with_alias(std::string other) {
  aliases.push_back(std::move(other));
  return *this;
}

Flag& Flag::with_placeholder(std::string text) {
  placeholder = std::move(text);
  return *this;
}

Flag& Flag::with_env(std::string variable) {
  env = std::move(variable);
  return *this;
}

Flag& Flag::with_default_text(std::string text) {
  default_text = std::move(text);
  return *this;
}

Flag& Flag::as_required() {
  required = true;
  return *this;
}

Flag& Flag::with_raw_value() {
  raw_value = true;
  return *this;
}

FlagTable::FlagTable(std::string command, std::string about)
    : command_(std::move(command)), about_(std::move(about)) {}

const Flag* FlagTable::find(const std::string& name) const {
  for (const Flag& f : flags_) {
    if (f.name == name) return &f;
    for (const std::string& a : f.aliases)
      if (a == name) return &f;
  }
  return nullptr;
}

namespace {

// A flag's name, placeholder and help text; the builders below add what it accepts.
Flag named_flag(const char* name, std::string placeholder, const char* help) {
  Flag f;
  f.name = name;
  f.placeholder = std::move(placeholder);
  f.help = help;
  return f;
}

}  // namespace

Flag& FlagTable::add(Flag f) {
  // Two flags of one name would make one of them unreachable: a mistake in the declarations.
  if (find(f.name)) throw std::logic_error("flag --" + f.name + " declared twice for cpuft " + command_);
  f.group = group_;
  if (f.show && f.default_text.empty()) f.default_text = f.show();
  flags_.push_back(std::move(f));
  return flags_.back();
}

Flag& FlagTable::add_integer(const char* name, int64_t lo, int64_t hi, const char* help,
                             std::function<void(int64_t)> store, std::function<int64_t()> value) {
  Flag f = named_flag(name, "N", help);
  f.range = integer_range_text(lo, hi);
  f.set = [=](const std::string& v, const std::string& who) { store(read_integer(v, who, lo, hi)); };
  f.show = [=] { return std::to_string(value()); };
  return add(std::move(f));
}

Flag& FlagTable::optional_integer(const char* name, std::optional<int64_t>* field, int64_t lo, int64_t hi,
                                  const char* help) {
  Flag f = named_flag(name, "N", help);
  f.range = integer_range_text(lo, hi);
  f.set = [=](const std::string& v, const std::string& who) { *field = read_integer(v, who, lo, hi); };
  f.show = [=] { return *field ? std::to_string(**field) : std::string("none"); };
  return add(std::move(f));
}

Flag& FlagTable::number(const char* name, double* field, Range range, const char* help) {
  Flag f = named_flag(name, "FLOAT", help);
  f.range = range.text();
  f.set = [=](const std::string& v, const std::string& who) { *field = read_number(v, who, range); };
  f.show = [=] { return show_number(*field); };
  return add(std::move(f));
}

Flag& FlagTable::text(const char* name, const char* placeholder, std::string* field, const char* help) {
  Flag f = named_flag(name, placeholder, help);
  const std::string ph = placeholder;
  f.set = [=](const std::string& v, const std::string& who) {
    if (v.empty()) fail(who, ": found '', expected a non-empty ", ph);
    // Longer than Linux opens: refused here, cut, rather than echoed whole by the errors of later steps.
    size_t longest_name = 0;
    for (size_t at = 0, end; at <= v.size(); at = end + 1) {
      end = std::min(v.find('/', at), v.size());
      longest_name = std::max(longest_name, end - at);
    }
    if (v.size() > 4096 || longest_name > 255)
      fail(who, ": found '", text_preview(v), "' (", v.size(), " bytes), expected a ", ph,
           " of at most 4096 bytes with names of at most 255");
    *field = v;
  };
  f.show = [=] { return field->empty() ? std::string("none") : *field; };
  return add(std::move(f));
}

Flag& FlagTable::optional_text(const char* name, const char* placeholder, std::optional<std::string>* field,
                               const char* help) {
  Flag f = named_flag(name, placeholder, help);
  f.set = [=](const std::string& v, const std::string&) { *field = v; };
  f.show = [=] { return *field ? **field : std::string("none"); };
  return add(std::move(f));
}

Flag& FlagTable::text_list(const char* name, const char* placeholder, std::vector<std::string>* field,
                           const char* help) {
  Flag f = named_flag(name, placeholder, help);
  f.repeatable = true;
  f.set = [=](const std::string& v, const std::string&) { field->push_back(v); };
  f.show = [=] {
    std::string out;
    for (const std::string& v : *field) out += (out.empty() ? "" : " ") + v;
    return out.empty() ? std::string("none") : out;
  };
  return add(std::move(f));
}

Flag& FlagTable::boolean(const char* name, bool* field, const char* help) {
  Flag f = named_flag(name, "", help);
  f.arity = FlagArity::kBool;
  f.set = [=](const std::string& v, const std::string&) { *field = v == "true"; };
  f.show = [=] { return std::string(*field ? "true" : "false"); };
  return add(std::move(f));
}

Flag& FlagTable::add_choice(const char* name, const std::vector<std::string>& words, const char* help,
                            std::function<void(size_t)> store, std::function<size_t()> current) {
  std::string placeholder, expected = "one of";
  for (const std::string& w : words) {
    placeholder += (placeholder.empty() ? "" : "|") + w;
    expected += " " + w;
  }
  Flag f = named_flag(name, placeholder, help);
  f.set = [=](const std::string& v, const std::string& who) {
    for (size_t i = 0; i < words.size(); ++i)
      if (words[i] == v) return store(i);
    fail(who, ": found '", text_preview(v), "', expected ", expected);
  };
  f.show = [=] {
    const size_t i = current();
    return i < words.size() ? words[i] : std::string("?");
  };
  return add(std::move(f));
}

Flag& FlagTable::custom(const char* name, const char* placeholder, const char* help, std::string range,
                        decltype(Flag::set) set, decltype(Flag::show) show) {
  Flag f = named_flag(name, placeholder, help);
  f.range = std::move(range);
  f.set = std::move(set);
  f.show = std::move(show);
  return add(std::move(f));
}

Flag& FlagTable::no_effect(const char* name, FlagArity arity, const char* why) {
  Flag f;
  f.name = name;
  f.placeholder = arity == FlagArity::kBool ? "" : "VALUE";
  f.arity = arity;
  f.role = FlagRole::kNoEffect;
  f.why = why;
  return add(std::move(f));
}

void FlagTable::keep_only(const FlagLayout& layout, const std::string& sibling, const std::string& why) {
  sibling_ = sibling;
  std::vector<Flag> kept;
  for (const auto& [group, names] : layout)
    for (const std::string& name : names) {
      const Flag* f = find(name);
      if (!f || f->role != FlagRole::kUsed)
        throw std::logic_error("cpuft " + command_ + " keeps --" + name + ", which is not a flag of its table");
      kept.push_back(*f);
      kept.back().group = group;
    }
  for (const Flag& f : flags_) {
    bool in_layout = false;
    for (const Flag& k : kept) in_layout |= k.name == f.name;
    if (in_layout) continue;
    kept.push_back(f);
    if (f.role == FlagRole::kUsed) {
      kept.back().role = FlagRole::kOtherCommand;
      kept.back().why = why;
    }
  }
  flags_ = std::move(kept);
}

}  // namespace cpuft
