// Command-line parsing for `cpuft train | evaluate | predict`: the flag table of flags/train_flags.h
// read by flags/flag_parser.h, then the checks that need every flag (required files for the command,
// window geometry, dataset hubs).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "cpuft/flags/flag_parser.h"
#include "cpuft/flags/train_args.h"

namespace cpuft {

struct ParsedArgs {
  TrainArgs args;
  std::vector<std::string> notices;  // one line per flag with no effect (no "cpuft: " prefix)
  std::set<std::string> given;       // names of the flags on the command line (flag_parser's ParsedFlags::given)
  bool help = false;                 // --help / -h was given: print train_args_help() and stop
};

// "train" | "evaluate" | "predict"; throws cpuft::Error naming the word otherwise.
Command parse_command(const std::string& word);

// Parses the flags after the subcommand. Environment variables apply first, flags override them.
// Throws cpuft::Error with one line naming the flag, the value found and what was expected; an
// unknown flag gets the closest real flag as a suggestion. Cross-flag checks (required files for the
// command, --doc_stride < --max_seq_length, ...) run after all flags are read.
ParsedArgs parse_train_args(Command command, const std::vector<std::string>& flags,
                            const EnvLookup& env = EnvLookup());

// The --help text of the command (flags/flag_help.h).
std::string train_args_help(Command command);

// Names (without "--") of every flag `cpuft train` uses, then of every accepted reference-stack flag.
std::vector<std::string> train_flag_names();
std::vector<std::string> ignored_flag_names();

}  // namespace cpuft
