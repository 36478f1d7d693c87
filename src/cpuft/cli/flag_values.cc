#include "cpuft/cli/flag_values.h"

#include <cmath>
#include <stdexcept>

#include "cpuft/util/error.h"

namespace cpuft {

int flag_int(const std::string& flag, const std::string& value, int min) {
  try {
    size_t used = 0;
    const int x = std::stoi(value, &used);
    if (used == value.size() && x >= min) return x;
  } catch (const std::exception&) {
  }
  if (min == 0) fail(flag, ": found '", value, "', expected a non-negative integer");
  if (min == 1) fail(flag, ": found '", value, "', expected a positive integer");
  fail(flag, ": found '", value, "', expected an integer >= ", min);
}

double flag_positive_number(const std::string& flag, const std::string& value) {
  try {
    size_t used = 0;
    const double x = std::stod(value, &used);
    if (used == value.size() && std::isfinite(x) && x > 0) return x;
  } catch (const std::exception&) {
  }
  fail(flag, ": found '", value, "', expected a number > 0");
}

}  // namespace cpuft
