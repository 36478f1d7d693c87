// libFuzzer target: Tokenizer::encode on arbitrary bytes with the bundled uncased vocabulary
// (tests/fixtures/text). Malformed UTF-8 must end in cpuft::Error; anything else must give one offset per
// id, each a non-empty code-point span inside the input, in order.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cpuft/text/tokenizer.h"
#include "cpuft/text/utf8.h"
#include "cpuft/util/error.h"

namespace {

const cpuft::Tokenizer& tokenizer() {
  static const cpuft::Tokenizer tok = cpuft::Tokenizer::load(CPUFT_FUZZ_TOKENIZER_DIR);
  return tok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  cpuft::Tokenizer::Encoding enc;
  try {
    enc = tokenizer().encode(text);
  } catch (const cpuft::Error&) {
    return 0;  // malformed UTF-8: a clean error is the expected outcome
  }
  const auto length = static_cast<int64_t>(cpuft::count_code_points(text));
  if (enc.ids.size() != enc.offsets.size()) std::abort();
  int64_t previous_begin = 0;
  for (size_t i = 0; i < enc.ids.size(); ++i) {
    const cpuft::TokenOffset& o = enc.offsets[i];
    if (enc.ids[i] < 0 || enc.ids[i] >= tokenizer().vocab_size()) std::abort();
    if (o.begin < previous_begin || o.begin >= o.end || o.end > length) std::abort();
    previous_begin = o.begin;
  }
  return 0;
}
