#include "cpuft/data/squad_reader.h"

#include <gtest/gtest.h>

#include <fstream>

#include "cpuft/util/error.h"
#include "common/shared_data.h"

namespace cpuft {
namespace {

const char* kV1 = R"({"version": "1.1", "data": [{"title": "T", "paragraphs": [
  {"context": "Caf\u00e9 au lait in Paris.", "qas": [
    {"id": "a", "question": " Where?", "answers": [{"text": "Paris", "answer_start": 16},
                                                   {"text": "in Paris", "answer_start": 13}]},
    {"id": "b", "question": "What?", "answers": [{"text": "lait", "answer_start": 3}]}]}]},
  {"title": "U", "paragraphs": [{"context": "x", "qas": [
    {"id": "c", "question": "q", "answers": [{"text": "x", "answer_start": 0}]}]}]}]})";

TEST(SquadReader, FlattensInFileOrderAndCountsMismatches) {
  const SquadDataset d = parse_squad(kV1, "v1.json");
  EXPECT_EQ(d.version, 1);
  ASSERT_EQ(d.examples.size(), 3u);
  EXPECT_EQ(d.examples[0].id, "a");
  EXPECT_EQ(d.examples[0].question, " Where?");  // kept as in the file; the feature builder lstrips
  EXPECT_EQ(d.examples[0].title, "T");
  EXPECT_EQ(d.examples[0].context, "Caf\xc3\xa9 au lait in Paris.");
  ASSERT_EQ(d.examples[0].answers.size(), 2u);
  EXPECT_EQ(d.examples[0].answers[0].answer_start, 16);  // code points: "é" is one
  EXPECT_EQ(d.examples[2].title, "U");
  // "lait" is at code point 8, not 3: kept as given, counted.
  EXPECT_EQ(d.examples[1].answers[0].answer_start, 3);
  EXPECT_EQ(d.mismatched_answers, 1);
}

TEST(SquadReader, DetectsV2) {
  const char* v2 = R"({"version": "v2.0", "data": [{"title": "T", "paragraphs": [{"context": "abc", "qas": [
    {"id": "a", "question": "q", "answers": [], "is_impossible": true,
     "plausible_answers": [{"text": "zz", "answer_start": 99}]},
    {"id": "b", "question": "q", "answers": [{"text": "b", "answer_start": 1}], "is_impossible": false}]}]}]})";
  const SquadDataset d = parse_squad(v2, "v2.json");
  EXPECT_EQ(d.version, 2);
  ASSERT_EQ(d.examples.size(), 2u);
  EXPECT_TRUE(d.examples[0].is_impossible);
  EXPECT_TRUE(d.examples[0].answers.empty());
  EXPECT_FALSE(d.examples[1].is_impossible);
  EXPECT_EQ(d.mismatched_answers, 0);
  // No version field, but an unanswerable question: still v2.
  const char* unversioned = R"({"data": [{"paragraphs": [{"context": "abc", "qas": [
    {"id": "a", "question": "q", "answers": []}]}]}]})";
  EXPECT_EQ(parse_squad(unversioned, "u.json").version, 2);
}

// Every malformed input gives one line naming the file, the JSON path, the value and the expectation.
void expect_error(const std::string& json, const std::string& path, const std::string& found) {
  try {
    parse_squad(json, "bad.json");
    ADD_FAILURE() << "no error for " << json;
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind("bad.json: ", 0), 0u) << msg;
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(found), std::string::npos) << msg;
    EXPECT_NE(msg.find("expected"), std::string::npos) << msg;
  }
}

std::string with_qa(const std::string& qa) {
  return R"({"data": [{"title": "T", "paragraphs": [{"context": "ab", "qas": [)" + qa + "]}]}]}";
}

TEST(SquadReader, MalformedInputs) {
  expect_error("{\"data\": [", "not valid JSON", "byte");
  expect_error("[1, 2]", "(top level)", "array");
  expect_error("{\"version\": \"1.1\"}", ": data: found nothing", "missing");
  expect_error("{\"data\": {}}", ": data: found object", "expected an array");
  expect_error("{\"data\": [3]}", "data[0]", "number 3");
  expect_error("{\"data\": [{\"title\": 5, \"paragraphs\": []}]}", "data[0].title", "number 5");
  expect_error("{\"data\": [{\"title\": \"t\"}]}", "data[0].paragraphs", "missing");
  expect_error("{\"data\": [{\"paragraphs\": [{\"qas\": []}]}]}", "data[0].paragraphs[0].context", "missing");
  expect_error("{\"data\": [{\"paragraphs\": [{\"context\": 1, \"qas\": []}]}]}", "data[0].paragraphs[0].context",
               "number 1");
  expect_error("{\"data\": [{\"paragraphs\": [{\"context\": \"c\"}]}]}", "data[0].paragraphs[0].qas", "missing");
  expect_error(with_qa(R"({"question": "q", "answers": []})"), "data[0].paragraphs[0].qas[0].id", "missing");
  expect_error(with_qa(R"({"id": 7, "question": "q", "answers": []})"), "qas[0].id", "number 7");
  expect_error(with_qa(R"({"id": "a", "answers": []})"), "qas[0].question", "missing");
  expect_error(with_qa(R"({"id": "a", "question": "q"})"), "qas[0].answers", "missing");
  expect_error(with_qa(R"({"id": "a", "question": "q", "answers": "x"})"), "qas[0].answers", "string");
  expect_error(with_qa(R"({"id": "a", "question": "q", "answers": [], "is_impossible": "yes"})"),
               "qas[0].is_impossible", "string");
  expect_error(with_qa(R"({"id": "a", "question": "q", "answers": [{"answer_start": 0}]})"),
               "qas[0].answers[0].text", "missing");
  expect_error(with_qa(R"({"id": "a", "question": "q", "answers": [{"text": "a"}]})"),
               "qas[0].answers[0].answer_start", "missing");
  expect_error(with_qa(R"({"id": "a", "question": "q", "answers": [{"text": "a", "answer_start": "0"}]})"),
               "answers[0].answer_start", "string");
  expect_error(with_qa(R"({"id": "a", "question": "q", "answers": [{"text": "a", "answer_start": 1.5}]})"),
               "answers[0].answer_start", "number 1.5");
  expect_error(with_qa(R"({"id": "a", "question": "q", "answers": [{"text": "a", "answer_start": -1}]})"),
               "data[0].paragraphs[0].qas[0].answers[0].answer_start", "number -1");
  expect_error(with_qa(R"({"id": "a", "question": "q", "answers": [{"text": "a", "answer_start": 3}]})"),
               "answers[0].answer_start", "[0, 2]");
  expect_error(with_qa(R"({"id": "a", "question": "q", "answers": [{"text": "a", "answer_start": 18446744073709551615}]})"),
               "answers[0].answer_start", "18446744073709551615");
  expect_error(with_qa(R"({"id": "a", "question": "q", "answers": []}, {"id": "a", "question": "r", "answers": []})"),
               "qas[1].id", "already used at data[0].paragraphs[0].qas[0]");
}

TEST(SquadReader, FlatHubRecords) {
  const char* flat = R"({"version": "0.1.0", "data": [
    {"id": "a", "title": "T", "context": "abc def", "question": "q1",
     "answers": {"text": ["def", "abc"], "answer_start": [4, 0]}},
    {"id": "b", "title": "T", "context": "abc def", "question": "q2", "answers": {"text": [], "answer_start": []}}]})";
  const SquadDataset d = parse_squad(flat, "flat.json");
  ASSERT_EQ(d.examples.size(), 2u);
  EXPECT_EQ(d.version, 2);
  EXPECT_EQ(d.examples[0].title, "T");
  ASSERT_EQ(d.examples[0].answers.size(), 2u);
  EXPECT_EQ(d.examples[0].answers[1].text, "abc");
  EXPECT_EQ(d.examples[0].answers[0].answer_start, 4);
  EXPECT_TRUE(d.examples[1].answers.empty());
  EXPECT_EQ(d.mismatched_answers, 0);
}

std::string flat_record(const std::string& answers) {
  return R"({"data": [{"id": "a", "context": "abc", "question": "q", "answers": )" + answers + "}]}";
}

TEST(SquadReader, MalformedFlatRecords) {
  expect_error(flat_record("[]"), "data[0].answers", "array");
  expect_error(flat_record(R"({"answer_start": []})"), "data[0].answers.text", "missing");
  expect_error(flat_record(R"({"text": ["a"], "answer_start": []})"), "data[0].answers.answer_start", "0 entries");
  expect_error(flat_record(R"({"text": [1], "answer_start": [0]})"), "data[0].answers.text[0]", "number 1");
  expect_error(flat_record(R"({"text": ["a"], "answer_start": [9]})"), "data[0].answers.answer_start[0]", "number 9");
  expect_error(R"({"data": [{"context": "abc", "question": "q", "answers": {"text": [], "answer_start": []}}]})",
               "data[0].id", "missing");
}

TEST(SquadReader, MissingFileNamesThePath) {
  try {
    read_squad("/nonexistent/dev.json");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dev.json"), std::string::npos);
  }
}

TEST(SquadReader, OfficialDevSet) {
  CPUFT_SHARED_SQUAD_OR_SKIP(path, "dev-v1.1.json");
  const SquadDataset d = read_squad(path);
  EXPECT_EQ(d.version, 1);
  EXPECT_EQ(d.examples.size(), 10570u);
  size_t answers = 0;
  for (const auto& e : d.examples) answers += e.answers.size();
  EXPECT_EQ(answers, 34726u);
  EXPECT_EQ(d.mismatched_answers, 0);
  EXPECT_EQ(d.examples.front().id, "56be4db0acb8001400a502ec");
}

TEST(SquadReader, InvalidUtf8) {
  expect_error("{\"data\": [\"\xff\"]}", "not valid JSON", "byte");
}

}  // namespace
}  // namespace cpuft
