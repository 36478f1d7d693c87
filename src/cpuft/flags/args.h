// Command-line parsing for `cpuft train | evaluate | predict`. Every flag is declared once in a table
// (flags/flag_table.cc) with its name, placeholder, group, help text, validator and optional CPUFT_*
// environment variable; --help is generated from the same table. Flags of the Python reference stack
// that mean nothing here are accepted with one notice each. Lives in train/ (not cli/) so that tests
// can link it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cpuft/flags/train_args.h"

namespace cpuft {

struct ParsedArgs {
  TrainArgs args;
  std::vector<std::string> notices;  // one line per ignored reference-stack flag (no "cpuft: " prefix)
  bool help = false;                 // --help / -h was given: print train_args_help() and stop
};

// Returns the value of an environment variable or nullptr (std::getenv by default; tests inject).
using EnvLookup = std::function<const char*(const char*)>;

// "train" | "evaluate" | "predict"; throws cpuft::Error naming the word otherwise.
Command parse_command(const std::string& word);

// Parses the flags after the subcommand. Environment variables apply first, flags override them.
// Throws cpuft::Error with one line naming the flag, the value found and what was expected; an
// unknown flag gets the closest real flag as a suggestion. Cross-flag checks (required files for the
// command, --doc_stride < --max_seq_length, ...) run after all flags are read.
ParsedArgs parse_train_args(Command command, const std::vector<std::string>& flags,
                            const EnvLookup& env = EnvLookup());

// The --help text: every flag by group with its placeholder, default and environment variable.
std::string train_args_help(Command command);

// Names (without "--") of every real flag, then of every accepted reference-stack flag.
std::vector<std::string> train_flag_names();
std::vector<std::string> ignored_flag_names();

// Levenshtein distance, used for "did you mean" suggestions.
size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace cpuft
