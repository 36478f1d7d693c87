// `cpuft predict --input`: JSON lines of questions, each line read with the bounded JSON reader.
#include "cpuft/data/question_lines.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "common/temp_dir.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

std::string lines_error(const std::string& text) {
  try {
    parse_question_lines(text, "q.jsonl");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(QuestionLines, ReadsObjectsSkippingBlankLines) {
  const QuestionLines q = parse_question_lines("{\"question\": \"a?\", \"context\": \"b\", \"id\": \"x\"}\n \r\n"
                                               "{\"question\": \"c?\", \"context\": \"d\"}",
                                               "q.jsonl");
  const std::vector<Example>& ex = q.examples;
  ASSERT_EQ(ex.size(), 2u);
  EXPECT_EQ(ex[0].id, "x");
  EXPECT_EQ(ex[1].id, "1");  // for post-processing only: predict does not echo it
  EXPECT_EQ(q.id_given, (std::vector<bool>{true, false}));
  EXPECT_EQ(ex[1].context, "d");
}

TEST(QuestionLines, ErrorsNameTheLine) {
  EXPECT_EQ(lines_error("{\"question\": \"q\"}\n"),
            "q.jsonl:1: field 'context' missing or not a string, expected {\"question\": ..., \"context\": ...}");
  EXPECT_EQ(lines_error("{\"question\": \"q\", \"context\": \"c\"}\n{\"question\": \n").rfind(
                "q.jsonl:2: not valid JSON at byte 14 (line 1, column 14): ", 0),
            0u);
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(lines_error("\n\n{\"question\": " + deep + "}"),
            "q.jsonl:3: nested deeper than 64 levels at byte 77 (line 1, column 77)");
}

TEST(QuestionLines, FilesMustBeRegular) {
  const cpuft_test::TempDir tmp("cpuft_lines_test");
  const std::string& dir = tmp.path();
  try {
    read_question_lines(dir);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), dir + ": is a directory, expected a regular file");
  }
  ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0600), 0);
  EXPECT_THROW(read_question_lines(dir + "/fifo"), Error);  // refused at once, not waiting for a writer
}

}  // namespace
}  // namespace cpuft
