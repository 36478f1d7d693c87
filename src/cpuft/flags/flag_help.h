// The --help text of a command, generated from its flag table (flags/flag_table.h): the usage line,
// what the command does, then each flag by section with its placeholder, help, range and default.
#pragma once

#include <string>

#include "cpuft/flags/flag_table.h"

namespace cpuft {

std::string flag_help(const FlagTable& table);

}  // namespace cpuft
