// Values of the small subcommands' flags (doctor, bench, launch, cluster-check, init-model); `train`
// and its siblings use the flag table of flags/flag_table.h.
#pragma once

#include <string>

namespace cpuft {

// A whole number in [min, max] written in full (no sign tricks, no trailing text); otherwise a one-line
// error "FLAG: found 'VALUE', expected a positive integer" (min 1), "... a non-negative integer" (min
// 0), or "... expected at most MAX". The default max keeps every count these commands take far from
// overflowing what is computed from it.
int flag_int(const std::string& flag, const std::string& value, int min = 1, int max = 1000000);

// A finite number > 0 written in full; otherwise "FLAG: found 'VALUE', expected a number > 0".
double flag_positive_number(const std::string& flag, const std::string& value);

}  // namespace cpuft
