// The flags of one cpuft command, declared once each: name, other spellings, placeholder, --help
// section and text, the values accepted, the default, an optional CPUFT_* variable. Each flag is bound
// to a variable of the command's own arguments struct, so the parser (flags/flag_parser.h) stores
// checked values straight into it and the help (flags/flag_help.h) is generated from the same table.
//
//   int ranks = 0;
//   bool json = false;
//   FlagTable t("doctor", "Prints what cpuft sees on this machine ...");
//   t.integer("ranks-per-node", &ranks, 1, 1000000, "show the plan for K ranks").with_alias("ranks_per_node");
//   t.boolean("json", &json, "print the report as JSON");
//   if (parse_flags(t, argv).help) std::fputs(flag_help(t).c_str(), stdout);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cpuft/flags/value_readers.h"

namespace cpuft {

enum class FlagArity {
  kBool,  // "--x", "--x true|false|1|0|yes|no", "--x=false", "--no_x"
  kOne,   // "--x VALUE" or "--x=VALUE"
  kMany,  // "--x A B C": the words up to the next flag (reference flags such as --report_to)
};

// What giving a flag does in this command.
enum class FlagRole {
  kUsed,          // its value is checked and stored; --help shows it in full
  kNoEffect,      // a run_qa.py / TrainingArguments flag that means nothing in cpuft: a notice; --help lists it
  kOtherCommand,  // a flag of a sibling command (train's --learning_rate given to evaluate): its value is
                 // checked as there, so a command line fails as it did, then a notice; --help leaves it out
};

struct Flag {
  std::string name;                  // without "--"
  std::vector<std::string> aliases;  // other spellings accepted: --ranks_per_node for --ranks-per-node
  std::string placeholder;           // "N", "FLOAT", "PATH", "a|b"; empty for booleans
  std::string group;                 // --help section
  std::string help;
  std::string range;         // the values accepted as --help shows them ("[1, 4096]"); empty: any
  std::string default_text;  // the default as --help shows it
  std::string env;           // CPUFT_* variable that sets the flag, or empty
  FlagArity arity = FlagArity::kOne;
  FlagRole role = FlagRole::kUsed;
  std::string why;          // NoEffect / OtherCommand: completes "--NAME has no effect in cpuft...: WHY"
  bool required = false;    // the command cannot run without it
  bool repeatable = false;  // each use adds a value
  bool raw_value = false;   // the value may start with "--" (--mpi-arg --mca, a question about "--x")
  // Checks `value` and stores it; `who` ("--seed" as typed, or "CPUFT_THREADS") starts errors.
  // Booleans receive "true" or "false". Empty for flags with nothing to store.
  std::function<void(const std::string& value, const std::string& who)> set;
  std::function<std::string()> show;  // the bound variable's value as --help shows it

  Flag& with_alias(std::string other);
  Flag& with_placeholder(std::string text);  // "K" rather than the type's "N"
  Flag& with_env(std::string variable);
  Flag& with_default_text(std::string text);  // when the value alone does not say it ("one per core")
  Flag& as_required();
  Flag& with_raw_value();
};

// --help sections and the flags in each, in order.
using FlagLayout = std::vector<std::pair<std::string, std::vector<std::string>>>;

class FlagTable {
 public:
  // `command` as typed after `cpuft`; `about`: what the command does and notes, the text --help shows
  // between the usage line and the flags.
  FlagTable(std::string command, std::string about);

  const std::string& command() const { return command_; }
  const std::string& about() const { return about_; }
  const std::vector<Flag>& flags() const { return flags_; }
  // The flag named `name` (or spelt so), or nullptr.
  const Flag* find(const std::string& name) const;

  // Flags declared next go into this --help section.
  void group(std::string name) { group_ = std::move(name); }
  // The words after "--" belong to the command (cpuft launch ... -- train ...); `placeholder` for usage.
  void rest_after_dashes(std::string placeholder) { rest_ = std::move(placeholder); }
  const std::string& rest_placeholder() const { return rest_; }  // empty: "--" is an error

  // Typed flags bound to `field`. The field's value when declared is the default --help shows.
  template <typename Int>
  Flag& integer(const char* name, Int* field, int64_t lo, int64_t hi, const char* help) {
    return add_integer(name, lo, hi, help, [field](int64_t n) { *field = static_cast<Int>(n); },
                       [field] { return static_cast<int64_t>(*field); });
  }
  Flag& optional_integer(const char* name, std::optional<int64_t>* field, int64_t lo, int64_t hi,
                         const char* help);  // unset: "none"
  Flag& number(const char* name, double* field, Range range, const char* help);
  // A path (every text flag is one): not empty, at most 4096 bytes with names of at most 255 (PATH_MAX
  // and NAME_MAX: longer ones cannot be opened).
  Flag& text(const char* name, const char* placeholder, std::string* field, const char* help);
  Flag& optional_text(const char* name, const char* placeholder, std::optional<std::string>* field,
                      const char* help);  // any value, even empty
  Flag& text_list(const char* name, const char* placeholder, std::vector<std::string>* field,
                  const char* help);  // repeatable: each use adds one value
  Flag& boolean(const char* name, bool* field, const char* help);
  template <typename E>
  Flag& choice(const char* name, E* field, std::vector<std::pair<std::string, E>> words, const char* help) {
    std::vector<std::string> names;
    for (const auto& w : words) names.push_back(w.first);
    return add_choice(name, names, help, [field, words](size_t i) { *field = words[i].second; },
                      [field, words] {
                        for (size_t i = 0; i < words.size(); ++i)
                          if (words[i].second == *field) return i;
                        return words.size();
                      });
  }
  // A flag with its own rule: `set` checks and stores, `show` gives the value; `range` as --help says it.
  Flag& custom(const char* name, const char* placeholder, const char* help, std::string range,
               decltype(Flag::set) set, decltype(Flag::show) show);
  // A flag accepted for compatibility that sets nothing (FlagRole::kNoEffect).
  Flag& no_effect(const char* name, FlagArity arity, const char* why);

  // For a command that shares its arguments struct with a sibling (evaluate and predict with train):
  // keeps the flags of `layout` in its sections and order; every other Used flag becomes an
  // OtherCommand flag with `why`, as a flag of cpuft `sibling`.
  void keep_only(const FlagLayout& layout, const std::string& sibling, const std::string& why);
  const std::string& sibling() const { return sibling_; }  // empty: no OtherCommand flags

 private:
  Flag& add(Flag f);
  Flag& add_integer(const char* name, int64_t lo, int64_t hi, const char* help, std::function<void(int64_t)> store,
                    std::function<int64_t()> value);
  Flag& add_choice(const char* name, const std::vector<std::string>& words, const char* help,
                   std::function<void(size_t)> store, std::function<size_t()> current);

  std::string command_, about_, group_, rest_, sibling_;
  std::vector<Flag> flags_;
};

}  // namespace cpuft
