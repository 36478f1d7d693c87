// Reads a command line against the command's flag table (flags/flag_table.h): `--flag VALUE`,
// `--flag=VALUE`, booleans as `--x`, `--x true|false`, `--no_x`; a value is checked and stored by its
// flag as soon as it is read. Errors are one line: "--seed: found 'x', expected an integer in [0, 9]",
// "--x: missing its value (N)", "unknown flag --lerning_rate; did you mean --learning_rate? (...)".
// Commands parse before they start MPI or read any file, so a bad flag costs nothing.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "cpuft/flags/flag_table.h"

namespace cpuft {

// Returns the value of an environment variable or nullptr (std::getenv by default; tests inject).
using EnvLookup = std::function<const char*(const char*)>;

struct ParsedFlags {
  bool help = false;                 // --help or -h was given; what followed it was not read
  std::vector<std::string> notices;  // one line per flag with no effect here (no "cpuft: " prefix)
  std::set<std::string> given;       // names of the flags on the command line (not from the environment)
  std::vector<std::string> rest;     // the words after "--" (tables with rest_after_dashes)
};

// Environment variables of the table's flags apply first; flags override them. Required flags are
// checked after every flag is read (not when help was asked for).
ParsedFlags parse_flags(const FlagTable& table, const std::vector<std::string>& argv,
                        const EnvLookup& env = EnvLookup());

// Levenshtein distance, used for "did you mean" suggestions.
size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace cpuft
