#include "cpuft/flags/flag_parser.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {

namespace {

bool is_flag_token(const std::string& tok) { return tok.size() > 2 && tok.compare(0, 2, "--") == 0; }

// The flag name closest to `name` when it is close enough to be a likely typo, or "".
std::string closest_flag(const FlagTable& table, const std::string& name) {
  if (name.size() > 64) return "";  // no flag is that long; edit distances to it would only cost time
  std::string best;
  size_t best_d = std::string::npos;
  for (const Flag& f : table.flags()) {
    std::vector<std::string> spellings = f.aliases;
    spellings.insert(spellings.begin(), f.name);
    for (const std::string& s : spellings) {
      const size_t d = edit_distance(name, s);
      if (d < best_d) best_d = d, best = s;
    }
  }
  return best_d <= std::max<size_t>(2, name.size() / 3) ? best : std::string();
}

void apply_environment(const FlagTable& table, const EnvLookup& env, std::set<std::string>* set_by_env) {
  for (const Flag& f : table.flags()) {
    if (f.env.empty() || f.role != FlagRole::kUsed) continue;
    const char* v = env ? env(f.env.c_str()) : std::getenv(f.env.c_str());
    if (!v) continue;
    std::string value = v;
    if (f.arity == FlagArity::kBool) {
      bool b = false;
      if (!parse_bool_word(value, &b)) fail(f.env, ": found '", text_preview(value), "', expected true or false");
      value = b ? "true" : "false";
    }
    f.set(value, f.env);
    set_by_env->insert(f.name);
  }
}

// The value of the flag at argv[*i] (already split from an inline "=VALUE"); advances *i past the
// words it takes.
std::string take_value(const Flag& f, bool negated, const std::optional<std::string>& inline_value,
                       const std::vector<std::string>& argv, size_t* i, const std::string& who) {
  if (f.arity == FlagArity::kBool) {
    bool b = !negated;
    if (inline_value) {
      if (!parse_bool_word(*inline_value, &b))
        fail(who, ": found '", text_preview(*inline_value), "', expected true or false");
    } else if (!negated && *i + 1 < argv.size() && parse_bool_word(argv[*i + 1], &b)) {
      ++*i;
    }
    return b ? "true" : "false";
  }
  if (inline_value) return *inline_value;
  if (*i + 1 >= argv.size() || (!f.raw_value && is_flag_token(argv[*i + 1])))
    fail(who, ": missing its value (", f.placeholder, ")");
  std::string value = argv[++*i];
  while (f.arity == FlagArity::kMany && *i + 1 < argv.size() && !is_flag_token(argv[*i + 1]))
    value += " " + argv[++*i];
  return value;
}

}  // namespace

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

ParsedFlags parse_flags(const FlagTable& table, const std::vector<std::string>& argv, const EnvLookup& env) {
  ParsedFlags r;
  std::set<std::string> set_by_env;
  apply_environment(table, env, &set_by_env);
  const std::string command = "cpuft " + table.command();
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& tok = argv[i];
    if (tok == "--help" || tok == "-h") {
      r.help = true;
      return r;
    }
    if (tok == "--" && !table.rest_placeholder().empty()) {
      r.rest.assign(argv.begin() + static_cast<long>(i) + 1, argv.end());
      break;
    }
    if (!is_flag_token(tok))
      fail("unexpected argument '", text_preview(tok), "'; flags start with --",
           table.rest_placeholder().empty() ? "" : " and the command to run comes after --", " (see `", command,
           " --help`)");
    std::string name = tok.substr(2);
    std::optional<std::string> inline_value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name.resize(eq);
    }
    const std::string who = "--" + name;
    const Flag* flag = table.find(name);
    bool negated = false;
    if (!flag && name.compare(0, 3, "no_") == 0) {  // --no_pad_to_max_length, as HfArgumentParser
      flag = table.find(name.substr(3));
      negated = flag && flag->arity == FlagArity::kBool && flag->role != FlagRole::kNoEffect && !inline_value;
      if (!negated) flag = nullptr;
    }
    if (!flag) {
      const std::string hint = closest_flag(table, name);
      fail("unknown flag ", text_preview(who), hint.empty() ? "" : "; did you mean --" + hint + "?", " (`", command,
           " --help` lists every flag)");
    }
    const std::string value = take_value(*flag, negated, inline_value, argv, &i, who);
    r.given.insert(flag->name);
    if (flag->set) flag->set(value, who);
    if (flag->role == FlagRole::kUsed) continue;
    const std::string notice = who + " has no effect in " +
                               (flag->role == FlagRole::kNoEffect ? std::string("cpuft") : command) + ": " + flag->why;
    if (std::find(r.notices.begin(), r.notices.end(), notice) == r.notices.end()) r.notices.push_back(notice);
  }
  for (const Flag& f : table.flags())
    if (f.required && !r.given.count(f.name) && !set_by_env.count(f.name))
      fail("--", f.name, ": missing; `", command, "` needs --", f.name, " ", f.placeholder);
  return r;
}

}  // namespace cpuft
