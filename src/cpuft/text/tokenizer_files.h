// The parsers behind Tokenizer::load, on file contents rather than a directory (the fuzzers and
// tests call them directly). Errors name `path` / `file` and the field, as Tokenizer::load's do.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cpuft/text/tokenizer.h"

namespace cpuft {

// Applies tokenizer_config.json (do_lower_case, strip_accents, tokenize_chinese_chars, the special
// token names as strings or {"content": ...}) over `normalizer` and `names`.
void apply_tokenizer_config(std::string_view text, const std::string& path, NormalizerOptions& normalizer,
                            SpecialTokenNames& names);

// A tokenizer from the text of tokenizer.json and, when config_text is not null, of
// tokenizer_config.json (whose flags override tokenizer.json's, as BertTokenizerFast does).
Tokenizer tokenizer_from_json(std::string_view text, const std::string& file, const std::string* config_text,
                              const std::string& config_file, std::vector<std::string> source_files = {});

}  // namespace cpuft
