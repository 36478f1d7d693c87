// libFuzzer target: a run_ner JSON lines file -> its columns, tag set and tagged sentences. Bad input must
// end in one short cpuft::Error line; accepted input gives one tag id inside the tag list per word.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "cpuft/data/token_classification_data.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const cpuft::TokenFile f = cpuft::parse_token_file(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    const cpuft::TokenColumns columns = cpuft::choose_token_columns(f, cpuft::TokenColumnFlags{});
    const cpuft::TagSet tags = cpuft::read_tag_set(f, columns);
    if (tags.b_to_i.size() != tags.names.size()) std::abort();
    for (const cpuft::TaggedSentence& s : cpuft::tagged_sentences(f, columns, tags, cpuft::Split::kTrain)) {
      if (s.tags.size() != s.words.size()) std::abort();
      for (int32_t t : s.tags)
        if (t < 0 || static_cast<size_t>(t) >= tags.names.size()) std::abort();
    }
  } catch (const cpuft::Error& e) {
    cpuft_fuzz::check_error(e);
  }
  return 0;
}
