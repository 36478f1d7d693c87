// `cpuft predict --input`: JSON lines of questions, each line read with the bounded JSON reader.
#include "cpuft/data/question_lines.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
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
    QuestionLineReader reader(dir);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), dir + ": is a directory, expected a regular file");
  }
  ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0600), 0);
  EXPECT_THROW(QuestionLineReader(dir + "/fifo"), Error);  // refused at once, not waiting for a writer
}

std::string question_line(int i, bool with_id) {
  return "{\"question\": \"q" + std::to_string(i) + "?\", \"context\": \"c\"" +
         (with_id ? ", \"id\": \"x" + std::to_string(i) + "\"" : std::string()) + "}";
}

// predict --input read the whole input before answering any of it; the reader gives it chunk by chunk.
TEST(QuestionLines, ReaderGivesChunksInLineOrder) {
  const cpuft_test::TempDir tmp("cpuft_lines_test");
  const std::string file = tmp / "q.jsonl";
  {
    std::ofstream f(file);
    for (int i = 0; i < 5; ++i) f << question_line(i, i % 2 == 0) << "\n\n";
  }
  QuestionLineReader reader(file);
  std::vector<size_t> sizes;
  std::vector<std::string> ids;
  QuestionLines chunk;
  while (reader.read(chunk, 2, 1 << 20)) {
    sizes.push_back(chunk.examples.size());
    for (const Example& e : chunk.examples) ids.push_back(e.id);
    chunk = QuestionLines();
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{2, 2, 1}));
  // Positions count over the whole input, not within a chunk.
  EXPECT_EQ(ids, (std::vector<std::string>{"x0", "1", "x2", "3", "x4"}));
  EXPECT_FALSE(reader.read(chunk, 2, 1 << 20)) << "the end stays the end";
}

TEST(QuestionLines, ChunkStopsAtItsByteBudgetButBlankLinesDoNotEndTheInput) {
  const cpuft_test::TempDir tmp("cpuft_lines_test");
  const std::string file = tmp / "q.jsonl";
  {
    std::ofstream f(file);
    f << std::string(100000, '\n') << question_line(0, false) << "\n" << question_line(1, false);  // no final newline
  }
  QuestionLineReader reader(file);
  QuestionLines chunk;
  ASSERT_TRUE(reader.read(chunk, 100, 10));  // blank lines cost nothing; one question is over 10 bytes
  ASSERT_EQ(chunk.examples.size(), 1u);
  ASSERT_TRUE(reader.read(chunk, 100, 10));
  ASSERT_EQ(chunk.examples.size(), 2u);
  EXPECT_EQ(chunk.examples[1].question, "q1?");
  EXPECT_FALSE(reader.read(chunk, 100, 10));
}

// One 64 MB line was read whole (and answered); a line is bounded like any other input, and the
// reader stops at the limit instead of reading the rest of the line.
TEST(QuestionLines, LineOverTheLimitIsAnErrorNamingIt) {
  const cpuft_test::TempDir tmp("cpuft_lines_test");
  const std::string file = tmp / "q.jsonl";
  {
    std::ofstream f(file);
    f << question_line(0, false) << "\n" << std::string(kMaxQuestionLineBytes + 1, ' ') << "\n";
  }
  const std::string want = file + ":2: line longer than 4.0 MiB, expected one {\"question\": ..., \"context\": ...} "
                                  "object of at most 4.0 MiB per line";
  QuestionLineReader reader(file);
  QuestionLines chunk;
  ASSERT_TRUE(reader.read(chunk, 1, 1 << 20));
  try {
    reader.read(chunk, 100, 1 << 20);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), want);
  }
  EXPECT_EQ(lines_error("\n" + std::string(kMaxQuestionLineBytes + 1, 'x')),
            "q.jsonl:2: line longer than 4.0 MiB, expected one {\"question\": ..., \"context\": ...} object of at "
            "most 4.0 MiB per line");
}

}  // namespace
}  // namespace cpuft
