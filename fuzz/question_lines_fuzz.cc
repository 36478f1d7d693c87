// libFuzzer target: `cpuft predict --input` JSON lines -> examples. Bad input must end in one short
// cpuft::Error line naming the line; accepted input gives at most one example per line.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cpuft/data/question_lines.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    if (cpuft::parse_question_lines(text, "fuzz.jsonl").examples.size() > lines) std::abort();
  } catch (const cpuft::Error& e) {
    cpuft_fuzz::check_error(e);
  }
  return 0;
}
