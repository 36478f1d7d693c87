#include "cpuft/data/question_lines.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/read_file.h"

namespace cpuft {

QuestionLines parse_question_lines(std::string_view text, const std::string& source) {
  QuestionLines out;
  size_t pos = 0;
  for (int64_t n = 1; pos < text.size(); ++n) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = str_cat(source, ":", n);
    const nlohmann::json j = parse_json(line, where);
    for (const char* field : {"question", "context"}) {
      if (!j.is_object() || !j.contains(field) || !j[field].is_string())
        fail(where, ": field '", field, "' missing or not a string, expected {\"question\": ..., \"context\": ...}");
    }
    Example ex;
    ex.question = j["question"].get<std::string>();
    ex.context = j["context"].get<std::string>();
    const bool has_id = j.contains("id");
    if (has_id && !j["id"].is_string())
      fail(where, ": field 'id' is ", json_describe(j["id"]), ", expected a string (or no \"id\")");
    ex.id = has_id ? j["id"].get<std::string>() : std::to_string(out.examples.size());
    out.examples.push_back(std::move(ex));
    out.id_given.push_back(has_id);
  }
  return out;
}

QuestionLines read_question_lines(const std::string& path) {
  if (path == "-") return parse_question_lines(read_descriptor(STDIN_FILENO, "<stdin>", kMaxDatasetBytes), "<stdin>");
  return parse_question_lines(read_file(path, kMaxDatasetBytes), path);
}

}  // namespace cpuft
