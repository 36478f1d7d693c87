// The flag table behind flags/args.h: one entry per flag, declared once (flags/flag_table.cc).
// Internal to the argument parser; other code uses flags/args.h.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cpuft/flags/train_args.h"

namespace cpuft {

enum class FlagArity {
  Bool,  // "--x", "--x true|false|1|0|yes|no", "--x=false"
  One,   // "--x VALUE" or "--x=VALUE"
  Many,  // "--x A B C" (reference flags such as --report_to)
};

struct FlagSpec {
  std::string name;         // without "--"
  std::string placeholder;  // shown in --help ("N", "FLOAT", "PATH"); empty for booleans
  std::string group;        // Model, Data, Training, Evaluation, Output, Distributed
  std::string help;
  std::string range;  // the values accepted, as --help shows them ("[1, 4096]", "(0, 10]"); empty: any
  std::string env;    // CPUFT_* variable that sets the flag, or empty
  FlagArity arity = FlagArity::One;
  // Validates `value` and stores it; `who` ("--learning_rate" or "CPUFT_THREADS") starts errors.
  // Booleans receive "true" or "false".
  std::function<void(TrainArgs&, const std::string& value, const std::string& who)> set;
  // The value as --help shows it ("5e-05", "none").
  std::function<std::string(const TrainArgs&)> show;
};

// A flag of run_qa.py / TrainingArguments that has no meaning in cpuft.
struct IgnoredFlag {
  std::string name;
  FlagArity arity;
  std::string why;  // completes "--NAME has no effect in cpuft: WHY"
};

const std::vector<FlagSpec>& flag_table();
const std::vector<IgnoredFlag>& ignored_flags();
const std::vector<std::string>& flag_groups();  // in --help order

// Reads "true/True/1/yes/t/y" or "false/False/0/no/f/n" as transformers' string_to_bool does.
bool parse_bool_word(const std::string& word, bool* out);

}  // namespace cpuft
