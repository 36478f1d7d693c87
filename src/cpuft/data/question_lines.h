// `cpuft predict --input`: questions as JSON lines, one {"question": ..., "context": ...[, "id": ...]}
// object per line; blank lines are skipped. Each line is parsed with the bounded reader of
// util/json_read.h, and errors name the source and the line ("<stdin>:3: ...").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cpuft/data/features.h"

namespace cpuft {

// The questions of one input, in line order.
struct QuestionLines {
  // An example without "id" gets its position ("0", "1", ...) as id: post-processing matches answers to
  // questions by id. predict echoes only the ids an input gave (id_given).
  std::vector<Example> examples;
  std::vector<bool> id_given;  // per example: the line had an "id" (a string; any other value is an error)
};

QuestionLines parse_question_lines(std::string_view text, const std::string& source);

// The questions of a file of JSON lines (a regular file of at most 2 GiB), or of standard input for "-".
QuestionLines read_question_lines(const std::string& path);

}  // namespace cpuft
