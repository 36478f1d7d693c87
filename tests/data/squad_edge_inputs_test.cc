// SQuAD reader edge inputs: empty text fields and invalid UTF-8 inside a question or context.
#include <gtest/gtest.h>

#include <string>

#include "cpuft/data/squad_reader.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

std::string paragraph(const std::string& context, const std::string& question) {
  return R"({"data": [{"title": "T", "paragraphs": [{"context": ")" + context + R"(", "qas": [{"id": "a", "question": ")" +
         question + R"(", "answers": []}]}]}]})";
}

std::string with_answer_start(const std::string& number) {
  return R"({"data": [{"paragraphs": [{"context": "ab", "qas": [{"id": "a", "question": "q",
      "answers": [{"text": "a", "answer_start": )" + number + "}]}]}]}]}";
}

std::string parse_error(const std::string& json) {
  try {
    parse_squad(json, "bad.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// run_qa (via datasets) takes empty strings as they are; the tokenizer then gives features with no
// question or no context tokens (tests/text/edge_inputs_test.cc), so the reader keeps them too.
TEST(SquadEdgeInputs, EmptyQuestionAndContextAreKeptAsHuggingFaceDoes) {
  const SquadDataset d = parse_squad(paragraph("", ""), "empty.json");
  ASSERT_EQ(d.examples.size(), 1u);
  EXPECT_EQ(d.examples[0].context, "");
  EXPECT_EQ(d.examples[0].question, "");
  // An answer in an empty context can only start at 0; HF's prepare_train_features would run off the
  // end of the feature looking for a context token, cpuft stops here with the JSON path.
  const std::string json = R"({"data": [{"paragraphs": [{"context": "", "qas": [{"id": "a", "question": "q",
      "answers": [{"text": "x", "answer_start": 1}]}]}]}]})";
  const std::string err = parse_error(json);
  EXPECT_NE(err.find("bad.json: data[0].paragraphs[0].qas[0].answers[0].answer_start: found number 1"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("[0, 0]"), std::string::npos) << err;
}

// JSON strings must be UTF-8: the parser stops at the first bad byte and the error gives its offset.
TEST(SquadEdgeInputs, InvalidUtf8InAQuestionOrContextNamesTheByte) {
  const std::string in_question = paragraph("ok", "wh\xC3(");
  const size_t q_byte = in_question.find('\xC3');
  std::string err = parse_error(in_question);
  EXPECT_EQ(err.rfind("bad.json: not valid JSON at byte ", 0), 0u) << err;
  EXPECT_NE(err.find("ill-formed UTF-8"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;

  const std::string in_context = paragraph("caf\xE9 au lait", "q");  // Latin-1, not UTF-8
  err = parse_error(in_context);
  EXPECT_EQ(err.rfind("bad.json: not valid JSON at byte ", 0), 0u) << err;
  // The offset is nlohmann's: the 1-based position of the byte at which the sequence turned invalid,
  // here the byte after a lead byte that is not followed by a continuation byte.
  EXPECT_NE(err.find("at byte " + std::to_string(in_context.find('\xE9') + 2) + " "), std::string::npos) << err;
  err = parse_error(in_question);
  EXPECT_NE(err.find("at byte " + std::to_string(q_byte + 2) + " "), std::string::npos) << err;
}

// make fuzz found this: nlohmann throws out_of_range, not parse_error, for a number beyond a double, and
// parse_squad let it escape (std::terminate in the CLI).
TEST(SquadEdgeInputs, NumberTooLargeForADoubleIsOneLineError) {
  for (const std::string& json : {std::string("44400E004000044000250258"),
                                 with_answer_start("1E400")}) {
    const std::string err = parse_error(json);
    EXPECT_EQ(err.rfind("bad.json: not valid JSON (", 0), 0u) << err;
    EXPECT_NE(err.find("number overflow"), std::string::npos) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  }
}

// Nesting beyond the reader's bound anywhere (top level, a title, a question, version, answer_start)
// is one error at its byte; it crashed the message printer at ~50,000 levels.
TEST(SquadEdgeInputs, DeepNestingIsRefusedWherever) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  for (const std::string& json :
       {deep, paragraph("ok", "q").replace(std::string("{\"data\": [{\"title\": \"T\"").size() - 3, 3, deep),
        with_answer_start(deep), "{\"version\": " + deep + ", \"data\": []}"}) {
    const std::string err = parse_error(json);
    EXPECT_EQ(err.rfind("bad.json: nested deeper than 64 levels at byte ", 0), 0u) << err.substr(0, 200);
    EXPECT_NE(err.find("; expected a SQuAD JSON document"), std::string::npos) << err;
  }
}

// A wrong-typed value of any size is shown as a short preview.
TEST(SquadEdgeInputs, LongValuesAreCutInMessages) {
  std::string json = with_answer_start("\"" + std::string(1 << 20, '7') + "\"");
  const std::string err = parse_error(json);
  EXPECT_NE(err.find("answer_start: found string \"77777"), std::string::npos) << err.substr(0, 200);
  EXPECT_LT(err.size(), 300u);
}

}  // namespace
}  // namespace cpuft
