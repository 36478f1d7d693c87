// `cpuft predict --input`: questions as JSON lines, one {"question": ..., "context": ...[, "id": ...]}
// object per line; blank lines are skipped. Each line is at most kMaxQuestionLineBytes and is parsed
// with the bounded reader of util/json_read.h; errors name the source and the line ("<stdin>:3: ...").
// An input of any length is read a chunk at a time (QuestionLineReader), so that predict answers
// each chunk before it reads the next and its memory does not grow with the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cpuft/data/features.h"

namespace cpuft {

// The longest line accepted: far above a question with a whole book chapter as context, far below
// what would strain memory once tokenised into windows.
constexpr uint64_t kMaxQuestionLineBytes = uint64_t{4} << 20;

// The questions of one input (or of one chunk of it), in line order.
struct QuestionLines {
  // An example without "id" gets its position in the input ("0", "1", ...) as id: post-processing
  // matches answers to questions by id. predict echoes only the ids an input gave (id_given).
  std::vector<Example> examples;
  std::vector<bool> id_given;  // per example: the line had an "id" (a string; any other value is an error)
};

// The questions of a whole text (a line longer than kMaxQuestionLineBytes is an error).
QuestionLines parse_question_lines(std::string_view text, const std::string& source);

// Reads a file of JSON lines (a regular file; opened, and refused otherwise, on construction) or
// standard input for "-", a chunk of lines at a time, keeping at most one chunk and one line in memory.
class QuestionLineReader {
 public:
  explicit QuestionLineReader(const std::string& path);
  ~QuestionLineReader();
  QuestionLineReader(const QuestionLineReader&) = delete;
  QuestionLineReader& operator=(const QuestionLineReader&) = delete;

  // Appends the questions of the next lines to `out`, stopping after `max_questions` questions, once
  // `max_bytes` of their text were read (a line is never split), or, with at least one question,
  // where the input has nothing more to give yet (a pipe whose writer has not written the next
  // line: the questions so far are answered meanwhile). Returns false when the input had no more
  // questions.
  bool read(QuestionLines& out, size_t max_questions, size_t max_bytes);

  const std::string& source() const { return source_; }

 private:
  // The next line without its '\n' (valid until the next call); false at the end of the input.
  bool next_line(std::string_view& line);
  // True when next_line would not wait: a whole line is buffered, the input has ended, or it has
  // bytes ready.
  bool line_ready() const;

  std::string source_;  // the path, or "<stdin>"
  int fd_ = -1;
  bool own_fd_ = false;
  bool eof_ = false;
  std::string buffer_;     // bytes read but not yet consumed start at pos_
  size_t pos_ = 0;
  int64_t line_number_ = 0;
  int64_t questions_ = 0;  // questions read so far: the position an example without "id" gets
};

}  // namespace cpuft
