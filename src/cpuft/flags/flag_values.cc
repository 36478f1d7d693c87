#include "cpuft/flags/flag_values.h"

#include <cmath>
#include <stdexcept>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {

int flag_int(const std::string& flag, const std::string& value, int min, int max) {
  const std::string shown = text_preview(value);
  try {
    size_t used = 0;
    const int x = std::stoi(value, &used);
    if (used == value.size() && x >= min && x <= max) return x;
    if (used == value.size() && x > max) fail(flag, ": found '", shown, "', expected at most ", max);
  } catch (const std::out_of_range&) {  // beyond an int: too large (or too small) whatever the range
    if (!value.empty() && value[0] != '-') fail(flag, ": found '", shown, "', expected at most ", max);
  } catch (const std::invalid_argument&) {
  }
  if (min == 0) fail(flag, ": found '", shown, "', expected a non-negative integer");
  if (min == 1) fail(flag, ": found '", shown, "', expected a positive integer");
  fail(flag, ": found '", shown, "', expected an integer >= ", min);
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
