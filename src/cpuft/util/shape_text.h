// A tensor shape as messages print it: "[30522, 768]".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cpuft {

inline std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace cpuft
