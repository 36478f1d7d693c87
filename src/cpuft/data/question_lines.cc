#include "cpuft/data/question_lines.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

[[noreturn]] void fail_line_too_long(const std::string& source, int64_t line_number) {
  fail(source, ":", line_number, ": line longer than ", format_bytes(kMaxQuestionLineBytes),
       ", expected one {\"question\": ..., \"context\": ...} object of at most ", format_bytes(kMaxQuestionLineBytes),
       " per line");
}

// Appends the question of one line (blank lines add nothing); `index` is its position in the input.
void parse_line(std::string_view line, const std::string& source, int64_t line_number, int64_t index,
                QuestionLines& out) {
  if (line.size() > kMaxQuestionLineBytes) fail_line_too_long(source, line_number);
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;
  const std::string where = str_cat(source, ":", line_number);
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
  ex.id = has_id ? j["id"].get<std::string>() : std::to_string(index);
  out.examples.push_back(std::move(ex));
  out.id_given.push_back(has_id);
}

}  // namespace

QuestionLines parse_question_lines(std::string_view text, const std::string& source) {
  QuestionLines out;
  size_t pos = 0;
  for (int64_t n = 1; pos < text.size(); ++n) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    parse_line(text.substr(pos, end - pos), source, n, static_cast<int64_t>(out.examples.size()), out);
    pos = end + 1;
  }
  return out;
}

QuestionLineReader::QuestionLineReader(const std::string& path) {
  if (path == "-") {
    source_ = "<stdin>";
    fd_ = STDIN_FILENO;
  } else {
    source_ = path;
    fd_ = open_regular_file(path);
    own_fd_ = true;
  }
}

QuestionLineReader::~QuestionLineReader() {
  if (own_fd_) ::close(fd_);
}

bool QuestionLineReader::next_line(std::string_view& line) {
  size_t scanned = pos_;  // no '\n' in [pos_, scanned)
  while (true) {
    const size_t nl = buffer_.find('\n', scanned);
    if (nl != std::string::npos) {
      line = std::string_view(buffer_).substr(pos_, nl - pos_);
      pos_ = nl + 1;
      ++line_number_;
      return true;
    }
    // The line so far is over the limit: stop here, without reading the rest of it.
    if (buffer_.size() - pos_ > kMaxQuestionLineBytes) fail_line_too_long(source_, line_number_ + 1);
    if (eof_) {
      if (pos_ == buffer_.size()) return false;
      line = std::string_view(buffer_).substr(pos_);  // the last line, without a final '\n'
      pos_ = buffer_.size();
      ++line_number_;
      return true;
    }
    // Keep only the unfinished line, then read more.
    buffer_.erase(0, pos_);
    scanned = buffer_.size();
    pos_ = 0;
    char block[1 << 16];
    const ssize_t n = ::read(fd_, block, sizeof block);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(source_, ": read failed: ", std::strerror(errno));
    }
    if (n == 0) eof_ = true;
    buffer_.append(block, static_cast<size_t>(n));
  }
}

bool QuestionLineReader::line_ready() const {
  if (eof_ || buffer_.find('\n', pos_) != std::string::npos) return true;
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, 0) != 0;  // an error too: next_line reports it
}

bool QuestionLineReader::read(QuestionLines& out, size_t max_questions, size_t max_bytes) {
  const size_t before = out.examples.size();
  size_t bytes = 0;
  std::string_view line;
  while (out.examples.size() - before < max_questions && bytes < max_bytes &&
         (out.examples.size() == before || line_ready()) && next_line(line)) {
    const size_t had = out.examples.size();
    parse_line(line, source_, line_number_, questions_, out);
    if (out.examples.size() == had) continue;  // a blank line: nothing kept
    ++questions_;
    bytes += line.size();
  }
  return out.examples.size() > before;
}

}  // namespace cpuft
