// cpuft evaluate writes the run_qa metrics files into --output_dir, and only there; cpuft predict answers for
// scripts with {"answer", "probability", "start", "end"} where answer == context[start:end] in code points, and
// says plainly when there is no answer.
#include <sstream>

#include "cli/e2e_fixture.h"
#include "cpuft/kernels/gemm.h"

namespace cpuft_e2e {
namespace {

class EvaluatePredict : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    model_ = tiny_model();
  }
  Args predict(const Args& extra) {
    return concat(concat({"predict", "--model_name_or_path", model_}, tiny_flags()), extra);
  }
  std::string model_;
};

std::u32string code_points(const std::string& s) {
  std::u32string out;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    char32_t cp = n == 1 ? c : c & (0x7F >> n);
    for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0x3F);
    out.push_back(cp);
    i += static_cast<size_t>(n);
  }
  return out;
}

// One answer line: its fields have the right types and the answer is the [start, end) code-point span.
void expect_answer_line(const nlohmann::json& line, const std::string& context) {
  ASSERT_TRUE(line.at("answer").is_string()) << line;
  ASSERT_TRUE(line.at("probability").is_number()) << line;
  EXPECT_FALSE(line.contains("score")) << "run_qa's n-best probability is named for what it is: " << line;
  const double probability = line["probability"].get<double>();
  EXPECT_GT(probability, 0.0);
  EXPECT_LE(probability, 1.0);
  const int64_t start = line.at("start").get<int64_t>(), end = line.at("end").get<int64_t>();
  const std::u32string cps = code_points(context);
  ASSERT_GE(start, 0) << line;
  ASSERT_LT(start, end) << line;
  ASSERT_LE(end, static_cast<int64_t>(cps.size())) << line;
  EXPECT_EQ(code_points(line["answer"].get<std::string>()),
            cps.substr(static_cast<size_t>(start), static_cast<size_t>(end - start)))
      << line;
}

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST_F(EvaluatePredict, EvaluateWritesTheMetricsIntoTheOutputDirectory) {
  const std::string dev = squad_file("dev.json", 20, 2);
  ProcessResult r = cpuft(concat({"evaluate", "--model_name_or_path", model_, "--validation_file", dev,
                                  "--output_dir", path("out")},
                                 tiny_flags()));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json m = read_json(path("out/eval_results.json"));
  EXPECT_EQ(m.at("eval_samples"), 20);
  const double f1 = m.at("eval_f1").get<double>(), em = m.at("eval_exact_match").get<double>();
  EXPECT_GE(f1, em);
  EXPECT_LE(f1, 100.0);
  EXPECT_NE(r.err.find("eval_f1 = " + m["eval_f1"].dump()), std::string::npos) << r.err;
  EXPECT_EQ(read_json(path("out/eval_predictions.json")).size(), 20u);
  EXPECT_FALSE(fs::exists(model_ + "/eval_results.json")) << "the model directory is left alone";
  // A second directory: the same model scores the same.
  ProcessResult r2 = cpuft(concat({"evaluate", "--model_name_or_path", model_, "--validation_file", dev,
                                   "--output_dir", path("elsewhere")},
                                  tiny_flags()));
  ASSERT_EQ(r2.status, 0) << r2.err;
  const nlohmann::json m2 = read_json(path("elsewhere/eval_results.json"));
  EXPECT_EQ(m2.at("eval_f1"), m["eval_f1"]) << "the same model must score the same";
  EXPECT_EQ(m2.at("eval_exact_match"), m["eval_exact_match"]);
}

// Without --output_dir, evaluate and predict --test_file wrote eval_* / predict_* files into the model
// directory and merged them into its all_results.json. Now they refuse before any work, as run_qa does.
TEST_F(EvaluatePredict, ResultFilesNeedAnOutputDirectory) {
  const std::string dev = squad_file("dev.json", 4, 2);
  const auto before = fs::directory_iterator(model_);
  const size_t files_before = static_cast<size_t>(std::distance(before, fs::directory_iterator()));
  ProcessResult r = cpuft(concat({"evaluate", "--model_name_or_path", model_, "--validation_file", dev}, tiny_flags()));
  EXPECT_ONE_LINE_ERROR(r, "--output_dir: missing", "eval_*");
  ProcessResult r2 = cpuft(predict({"--test_file", dev}));
  EXPECT_ONE_LINE_ERROR(r2, "--output_dir: missing", "predict_*");
  const auto after = fs::directory_iterator(model_);
  EXPECT_EQ(static_cast<size_t>(std::distance(after, fs::directory_iterator())), files_before);
  ProcessResult r3 = cpuft(predict({"--test_file", dev, "--output_dir", path("pred")}));
  ASSERT_EQ(r3.status, 0) << r3.err;
  EXPECT_EQ(read_json(path("pred/predict_predictions.json")).size(), 4u);
}

// An empty context has no answer: run_qa's "empty" placeholder came back as if it were one.
TEST_F(EvaluatePredict, EmptyContextHasNoAnswer) {
  ProcessResult r = cpuft(predict({"--question", "what is it?", "--context", ""}));
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<nlohmann::json> lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_EQ(lines[0], nlohmann::json::parse(R"({"answer": null, "probability": null, "start": null, "end": null})"))
      << lines[0];
}

// --bf16 where oneDNN has no bf16 matrix product runs, and says once that it emulates them.
TEST_F(EvaluatePredict, Bf16SaysWhenItsProductsAreEmulated) {
  const std::string dev = squad_file("dev.json", 8, 3);
  ProcessResult r = cpuft(concat(
      {"evaluate", "--model_name_or_path", model_, "--validation_file", dev, "--bf16", "--output_dir", path("out")},
      tiny_flags()));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_json(path("out/eval_results.json")).at("eval_samples"), 8);
  const bool said = r.err.find("bf16 products are emulated in f32") != std::string::npos;
  EXPECT_EQ(said, !cpuft::gemm_bf16_native()) << r.err;
}

TEST_F(EvaluatePredict, QuestionAndContextWithNonAsciiText) {
  // Accents are stripped by the uncased tokenizer, CJK characters are split: offsets must still map
  // back to code points of the original text.
  const std::string context = "Der Bär wohnt in München, nicht in Zürich. Ça va très bien — 東京 ist weit, Ærøskøbing nah.";
  ProcessResult r = cpuft(predict({"--question", "Wo wohnt der Bär?", "--context", context}));
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<nlohmann::json> lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  expect_answer_line(lines[0], context);
  EXPECT_FALSE(lines[0].contains("id"));
}

TEST_F(EvaluatePredict, LongContextAnsweredFromOneOfSeveralWindows) {
  // ~130 tokens in 64-token windows with stride 16: the answer's offsets come from whichever window won.
  std::string context;
  for (int i = 0; i < 8; ++i) context += "Ærøskøbing liegt in Dänemark, 東京 nicht; über die Brücke geht man zu Fuß. ";
  ProcessResult r = cpuft(predict({"--question", "Wo liegt es?", "--context", context}));
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<nlohmann::json> lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  expect_answer_line(lines[0], context);
}

TEST_F(EvaluatePredict, EmptyInputGivesNoAnswers) {
  ProcessResult r = cpuft(predict({"--input", "-"}), 120, "");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(EvaluatePredict, UnreadableInput) {
  ProcessResult r = cpuft(predict({"--input", path("missing.jsonl")}));
  EXPECT_ONE_LINE_ERROR(r, path("missing.jsonl") + ": missing, expected a regular file");
  ProcessResult r2 = cpuft(predict({"--input", dir_}));
  EXPECT_ONE_LINE_ERROR(r2, dir_ + ": is a directory, expected a regular file");
}

TEST_F(EvaluatePredict, JsonLinesFromStdin) {
  const std::vector<std::string> contexts = {"über alles in der Welt", "Ärger in Köln und Düsseldorf, sagt man.",
                                             "plain ascii context with several words in it"};
  std::string input = nlohmann::json({{"question", "was?"}, {"context", contexts[0]}, {"id", "first"}}).dump() + "\n";
  input += "\n";  // blank lines are skipped
  input += nlohmann::json({{"question", "wo?"}, {"context", contexts[1]}}).dump() + "\n";
  input += nlohmann::json({{"question", "which words?"}, {"context", contexts[2]}, {"id", "third"}}).dump() + "\n";
  ProcessResult r = cpuft(predict({"--input", "-"}), 120, input);
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<nlohmann::json> lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[0].at("id"), "first");
  EXPECT_FALSE(lines[1].contains("id")) << "no id given, none invented: " << lines[1];
  EXPECT_EQ(lines[2].at("id"), "third");
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    expect_answer_line(lines[i], contexts[i]);
  }
}

TEST_F(EvaluatePredict, BadJsonLineNamesTheLine) {
  const std::string input = "{\"question\": \"q\", \"context\": \"c d e\"}\n{\"question\": \"q\", \"context\": \n";
  ProcessResult r = cpuft(predict({"--input", "-"}), 120, input);
  EXPECT_ONE_LINE_ERROR(r, "<stdin>:2", "not valid JSON");
  EXPECT_TRUE(r.out.empty()) << "no answers before the input is known to be good: " << r.out;

  const std::string missing = "{\"question\": \"q\"}\n";
  ProcessResult r2 = cpuft(predict({"--input", "-"}), 120, missing);
  EXPECT_ONE_LINE_ERROR(r2, "<stdin>:1", "'context'");

  const std::string numeric_id = "{\"question\": \"q\", \"context\": \"c d e\", \"id\": 7}\n";
  ProcessResult r3 = cpuft(predict({"--input", "-"}), 120, numeric_id);
  EXPECT_ONE_LINE_ERROR(r3, "<stdin>:1: field 'id' is number 7, expected a string");
}

TEST_F(EvaluatePredict, QuestionWithoutContextIsAnError) {
  ProcessResult r = cpuft(predict({"--question", "what?"}));
  EXPECT_ONE_LINE_ERROR(r, "--question", "--context");
}

// Evaluating a SQuAD v2.0 file without --version_2_with_negative said nothing (training warned).
TEST_F(EvaluatePredict, EvaluateWarnsAboutV2WithoutTheFlag) {
  nlohmann::json d = marker_squad(3, 5);
  d["version"] = "v2.0";
  d["data"][0]["paragraphs"][0]["qas"][0]["is_impossible"] = true;
  d["data"][0]["paragraphs"][0]["qas"][0]["answers"] = nlohmann::json::array();
  const std::string dev = path("dev-v2.json");
  write_text(dev, d.dump());
  ProcessResult r = cpuft(concat({"evaluate", "--model_name_or_path", model_, "--validation_file", dev,
                                  "--output_dir", path("out")},
                                 tiny_flags()));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("cpuft: warning: " + dev + " has unanswerable questions (SQuAD v2.0) but "
                       "--version_2_with_negative is not set"),
            std::string::npos)
      << r.err;
}

// Answers that cannot be written are an error: `cpuft predict > /dev/full` and a closed stdout
// returned 0 with every answer lost.
TEST_F(EvaluatePredict, AnswersThatCannotBeWrittenAreAnError) {
  RunOptions full;
  full.stdout_file = "/dev/full";
  ProcessResult r = cpuft_with(predict({"--question", "what?", "--context", "the red apple"}), full);
  EXPECT_ONE_LINE_ERROR(r, "standard output: write failed: No space left on device");
  RunOptions closed;
  closed.close_stdout = true;
  ProcessResult r2 = cpuft_with(predict({"--question", "what?", "--context", "the red apple"}), closed);
  EXPECT_ONE_LINE_ERROR(r2, "standard output: write failed: Bad file descriptor");
  EXPECT_TRUE(r2.out.empty());
}

}  // namespace
}  // namespace cpuft_e2e
