// libFuzzer target: tokenizer.json text -> Tokenizer, then one sentence encoded with it. Bad input
// must end in one short cpuft::Error line; an accepted tokenizer must give in-range ids and ordered,
// non-empty offsets (whatever max_input_chars_per_word it sets, in linear time).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cpuft/text/tokenizer_files.h"
#include "cpuft/text/utf8.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const cpuft::Tokenizer tok = cpuft::tokenizer_from_json(text, "fuzz/tokenizer.json", nullptr, "");
    const std::string sentence = "Hello, [SEP] wörld: unaffable" + std::string(300, 'a') + " 東京";
    const cpuft::Tokenizer::Encoding enc = tok.encode(sentence);
    const auto length = static_cast<int64_t>(cpuft::count_code_points(sentence));
    if (enc.ids.size() != enc.offsets.size()) std::abort();
    for (size_t i = 0; i < enc.ids.size(); ++i) {
      if (enc.ids[i] < 0 || enc.ids[i] >= tok.vocab_size()) std::abort();
      if (enc.offsets[i].begin >= enc.offsets[i].end || enc.offsets[i].end > length) std::abort();
    }
  } catch (const cpuft::Error& e) {
    cpuft_fuzz::check_error(e);
  }
  return 0;
}
