// `cpuft predict --input`: questions as JSON lines, one {"question": ..., "context": ...[, "id": ...]}
// object per line; blank lines are skipped. Each line is parsed with the bounded reader of
// util/json_read.h, and errors name the source and the line ("<stdin>:3: ...").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cpuft/data/features.h"

namespace cpuft {

// Examples of `text` in line order; an example without "id" gets its position ("0", "1", ...).
std::vector<Example> parse_question_lines(std::string_view text, const std::string& source);

// The examples of a file of JSON lines (a regular file of at most 2 GiB), or of standard input for "-".
std::vector<Example> read_question_lines(const std::string& path);

}  // namespace cpuft
