#include "cpuft/flags/flag_help.h"

#include <algorithm>

namespace cpuft {

namespace {

std::string left_column(const Flag& f) { return "  --" + f.name + (f.placeholder.empty() ? "" : " " + f.placeholder); }

// "(range [1, 4096], default: 25; env CPUFT_X; also --x_y)"
std::string details(const Flag& f) {
  std::string out = "(";
  if (!f.range.empty()) out += "range " + f.range + ", ";
  out += f.required ? "required" : "default: " + f.default_text;
  if (f.repeatable) out += ", repeatable";
  if (!f.env.empty()) out += "; env " + f.env;
  for (const std::string& a : f.aliases) out += "; also --" + a;
  return out + ")";
}

}  // namespace

std::string flag_help(const FlagTable& table) {
  std::string out = "usage: cpuft " + table.command();
  bool any_boolean = false;
  size_t width = 0;
  std::vector<std::string> groups;
  for (const Flag& f : table.flags()) {
    if (f.role != FlagRole::kUsed) continue;
    if (f.required) out += " --" + f.name + " " + f.placeholder;
    any_boolean |= f.arity == FlagArity::kBool;
    width = std::max(width, left_column(f).size() + 2);
    if (std::find(groups.begin(), groups.end(), f.group) == groups.end()) groups.push_back(f.group);
  }
  out += " [flags]";
  if (!table.rest_placeholder().empty()) out += " -- " + table.rest_placeholder();
  out += "\n" + table.about();
  if (!table.about().empty() && table.about().back() != '\n') out += "\n";
  out += "Each flag as --flag VALUE or --flag=VALUE";
  out += any_boolean ? "; booleans also as --flag, --flag true|false.\n" : ".\n";

  width = std::min<size_t>(width, 44);  // a longer name starts its help on the next line
  for (const std::string& group : groups) {
    out += "\n" + (group.empty() ? std::string("Flags") : group) + ":\n";
    for (const Flag& f : table.flags()) {
      if (f.role != FlagRole::kUsed || f.group != group) continue;
      std::string left = left_column(f);
      if (left.size() < width) left.resize(width, ' ');
      else left += "\n" + std::string(width, ' ');
      out += left + f.help + " " + details(f) + "\n";
    }
  }
  std::string line;
  for (const Flag& f : table.flags()) {
    if (f.role != FlagRole::kNoEffect) continue;
    if (line.empty()) out += "\nAccepted for compatibility, with no effect:\n", line = " ";
    if (line.size() + f.name.size() + 3 > 100) out += line + "\n", line = " ";
    line += " --" + f.name;
  }
  if (!line.empty()) out += line + "\n";
  if (!table.sibling().empty())
    out += "\nThe other flags of cpuft " + table.sibling() +
           " are accepted, with a notice that they have no effect here.\n";
  return out;
}

}  // namespace cpuft
