// Loading the reference fixtures of tests/fixtures/eval/ (made by tools/make_eval_reference.py).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "cpuft/util/read_file.h"

namespace cpuft::testing {

inline nlohmann::json load_eval_fixture(const std::string& name) {
  return nlohmann::json::parse(read_file(std::string(CPUFT_FIXTURES) + "/eval/" + name));
}

}  // namespace cpuft::testing
