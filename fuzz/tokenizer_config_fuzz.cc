// libFuzzer target: tokenizer_config.json text applied over the defaults. Bad input must end in one
// short cpuft::Error line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cpuft/text/tokenizer_files.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  cpuft::NormalizerOptions normalizer;
  cpuft::SpecialTokenNames names;
  try {
    cpuft::apply_tokenizer_config(text, "fuzz/tokenizer_config.json", normalizer, names);
  } catch (const cpuft::Error& e) {
    cpuft_fuzz::check_error(e);
  }
  return 0;
}
