// libFuzzer target: parse_squad on arbitrary bytes. Bad input must end in one short cpuft::Error line;
// accepted input must give examples whose answer_start lies inside their context.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cpuft/data/squad_reader.h"
#include "cpuft/text/utf8.h"
#include "cpuft/util/error.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  cpuft::SquadDataset d;
  try {
    d = cpuft::parse_squad(json, "fuzz.json");
  } catch (const cpuft::Error& e) {
    cpuft_fuzz::check_error(e);
    return 0;
  }
  for (const cpuft::Example& ex : d.examples) {
    const auto length = static_cast<int64_t>(cpuft::count_code_points(ex.context));
    for (const cpuft::Answer& a : ex.answers) {
      if (a.answer_start < 0 || a.answer_start > length) std::abort();
    }
  }
  return 0;
}
