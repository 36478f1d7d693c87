// libFuzzer target: config.json text -> ModelConfig. Bad input must end in one short cpuft::Error
// line; an accepted config must satisfy the bounds the model sizes itself by.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cpuft/io/hf_config.h"
#include "cpuft/util/json_read.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const cpuft::ModelConfig c = cpuft::parse_model_config(text, "fuzz/config.json");
    if (c.hidden <= 0 || c.hidden > 65536 || c.layers <= 0 || c.layers > 512 || c.heads <= 0 || c.hidden % c.heads ||
        c.vocab_size <= 0 || c.pad_token_id < 0 || c.pad_token_id >= c.vocab_size)
      std::abort();
    cpuft::json_preview(c.raw);  // what a later message might print of it
  } catch (const cpuft::Error& e) {
    cpuft_fuzz::check_error(e);
  }
  return 0;
}
