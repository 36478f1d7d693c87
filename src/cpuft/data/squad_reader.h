// SQuAD reader: the official nested JSON (v1.1 and v2.0) flattened into examples in file order
// (article -> paragraph -> question), as run_qa.py sees them (docs/parity.md, SQuAD input). Elements of
// "data" that hold a "context" instead of "paragraphs" are read as the Hub's flat records
// ({"id", "title", "context", "question", "answers": {"text": [..], "answer_start": [..]}}), the form
// run_qa's --train_file / --validation_file take.
//
// Text fields are kept byte for byte; `answer_start` is a code-point index into the context and is
// kept as given even where the context does not hold the answer text there (HF does the same); such
// answers are only counted. Malformed input throws cpuft::Error naming the file, the JSON path
// (data[3].paragraphs[7].qas[2].answers[0].answer_start), the value found and what was expected.
// Duplicate question ids are rejected: run_qa maps predictions to examples by id, so a repeated id
// would silently merge two questions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cpuft/data/features.h"

namespace cpuft {

struct SquadDataset {
  std::vector<Example> examples;
  // 2 when the file says "version": "v2.0" (or "2.0") or any question is impossible or has no
  // answer; otherwise 1.
  int version = 1;
  // Answers whose text differs from context[answer_start : answer_start + len(text)] (code points).
  int64_t mismatched_answers = 0;
};

// Parses SQuAD JSON text; `source` names the file in error messages.
SquadDataset parse_squad(std::string_view json_text, const std::string& source);

// Reads and parses a SQuAD JSON file.
SquadDataset read_squad(const std::string& path);

}  // namespace cpuft
