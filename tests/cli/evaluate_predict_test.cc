// cpuft evaluate writes the run_qa metrics files into --output_dir, and only there; cpuft predict answers for
// scripts with {"answer", "probability", "start", "end"} where answer == context[start:end] in code points, and
// says plainly when there is no answer.
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
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
  // A micro BERT (hidden 8, one layer, 16 positions): its forward costs next to nothing, so a
  // million questions take seconds and what predict holds in memory is what shows.
  std::string micro_model() {
    const std::string config = path("micro_config.json");
    write_text(config, R"({"model_type": "bert", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
                           "intermediate_size": 16, "vocab_size": 30522, "max_position_embeddings": 16,
                           "type_vocab_size": 2})");
    ProcessResult r = cpuft({"init-model", "--config", config, "--tokenizer", CPUFT_FIXTURES "/text", "--output_dir",
                             path("micro"), "--seed", "1"});
    EXPECT_EQ(r.status, 0) << r.err;
    return path("micro");
  }
  Args micro_predict(const std::string& model, const Args& extra) {
    return concat({"predict", "--model_name_or_path", model, "--max_seq_length", "16", "--doc_stride", "4",
                   "--threads", "1", "--per_device_eval_batch_size", "64"},
                  extra);
  }
  std::string model_;
};

// Lines of `file` (counted without holding the file in memory).
size_t count_lines(const std::string& file) {
  std::ifstream f(file, std::ios::binary);
  size_t n = 0;
  char buf[1 << 16];
  while (f.read(buf, sizeof buf) || f.gcount() > 0) n += static_cast<size_t>(std::count(buf, buf + f.gcount(), '\n'));
  return n;
}

std::string tiny_question_lines(const std::string& file, int n) {
  std::ofstream f(file, std::ios::binary);
  for (int i = 0; i < n; ++i) f << "{\"question\": \"what?\", \"context\": \"red apple " << i % 10 << "\"}\n";
  return file;
}

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
  EXPECT_TRUE(r.out.empty()) << "no answers of a chunk before all of it is known to be good: " << r.out;

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

// Training on a SQuAD v2.0 file without --version_2_with_negative said nothing (evaluate warned).
TEST_F(EvaluatePredict, TrainingWarnsAboutV2WithoutTheFlag) {
  nlohmann::json d = marker_squad(8, 5);
  d["version"] = "v2.0";
  d["data"][0]["paragraphs"][0]["qas"][0]["is_impossible"] = true;
  d["data"][0]["paragraphs"][0]["qas"][0]["answers"] = nlohmann::json::array();
  const std::string train = path("train-v2.json");
  write_text(train, d.dump());
  ProcessResult r = cpuft(concat({"train", "--model_name_or_path", model_, "--train_file", train, "--output_dir",
                                  path("out"), "--max_steps", "1", "--per_device_train_batch_size", "4"},
                                 tiny_flags()));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("cpuft: warning: " + train + " has unanswerable questions (SQuAD v2.0) but "
                       "--version_2_with_negative is not set"),
            std::string::npos)
      << r.err;
}

// A SQuAD v2.0 file where no question has an answer: evaluate exited 0 with no exact, f1 or NoAns
// figures. The official v2.0 script scores it (every question is a NoAns one): so does cpuft.
TEST_F(EvaluatePredict, V2FileWithoutAnyAnswerIsScored) {
  nlohmann::json d = marker_squad(4, 5);
  d["version"] = "v2.0";
  for (auto& article : d["data"])
    for (auto& qa : article["paragraphs"][0]["qas"]) {
      qa["is_impossible"] = true;
      qa["answers"] = nlohmann::json::array();
    }
  const std::string dev = path("dev-v2.json");
  write_text(dev, d.dump());
  ProcessResult r = cpuft(concat({"evaluate", "--model_name_or_path", model_, "--validation_file", dev,
                                  "--version_2_with_negative", "--output_dir", path("out")},
                                 tiny_flags()));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json m = read_json(path("out/eval_results.json"));
  for (const char* k : {"eval_exact", "eval_f1", "eval_total", "eval_NoAns_exact", "eval_NoAns_f1", "eval_NoAns_total",
                        "eval_best_exact", "eval_best_exact_thresh", "eval_best_f1", "eval_best_f1_thresh"})
    EXPECT_TRUE(m.contains(k)) << k << " missing: " << m.dump();
  EXPECT_FALSE(m.contains("eval_HasAns_total")) << "no question has an answer: " << m.dump();
  EXPECT_EQ(m.at("eval_total"), 4);
  EXPECT_EQ(m.at("eval_NoAns_total"), 4);
  EXPECT_EQ(m.at("eval_exact"), m.at("eval_NoAns_exact"));
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

namespace cpuft_e2e {
namespace {

// predict --input read every line before it answered the first: a million tiny lines took gigabytes
// and no answer came out until all were read. Now it answers a chunk at a time: the peak memory of a
// million lines is that of ten thousand.
TEST_F(EvaluatePredict, InputOfAMillionLinesIsAnsweredInFlatMemory) {
  const std::string micro = micro_model();
  RunOptions few_out, many_out;
  few_out.stdout_file = path("few.out");
  many_out.stdout_file = path("many.out");
  ProcessResult few =
      cpuft_with(micro_predict(micro, {"--input", tiny_question_lines(path("few.jsonl"), 10000)}), few_out, 300);
  ASSERT_EQ(few.status, 0) << few.err;
  ProcessResult many =
      cpuft_with(micro_predict(micro, {"--input", tiny_question_lines(path("many.jsonl"), 1000000)}), many_out, 900);
  ASSERT_EQ(many.status, 0) << many.err;
  EXPECT_EQ(count_lines(path("few.out")), 10000u);
  EXPECT_EQ(count_lines(path("many.out")), 1000000u);
  ASSERT_GT(few.peak_rss_kb, 0);
  std::printf("peak RSS: %lld KiB for 10^4 lines, %lld KiB for 10^6\n", static_cast<long long>(few.peak_rss_kb),
              static_cast<long long>(many.peak_rss_kb));
  // 100 times the input, the same memory (give or take allocator noise).
  EXPECT_LT(many.peak_rss_kb, few.peak_rss_kb + 32 * 1024)
      << "peak RSS: " << few.peak_rss_kb << " KiB for 10^4 lines, " << many.peak_rss_kb << " KiB for 10^6";
}

// Answers flow as a filter's should: the questions written so far into a pipe are answered while the
// writer still holds it open (they came out only at the end of the input).
TEST_F(EvaluatePredict, QuestionsFromAPipeAreAnsweredBeforeTheInputEnds) {
  const std::string fifo = path("questions.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  RunOptions o;
  o.stdin_file = fifo;
  CpuftProcess p(predict({"--input", "-"}), dir_, o);
  std::ofstream writer(fifo, std::ios::binary);  // opens once the child has opened its end
  for (int i = 0; i < 3; ++i) writer << "{\"question\": \"what?\", \"context\": \"the red apple\", \"id\": \"" << i << "\"}\n";
  writer.flush();
  // Wait (up to a minute) for the three answers, the input still open.
  size_t answered = 0;
  for (int tries = 0; tries < 6000 && answered < 3; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    answered = count_lines(p.stdout_path());
  }
  EXPECT_EQ(answered, 3u) << "no answers before the input ended: " << p.stderr_so_far();
  writer << "{\"question\": \"what?\", \"context\": \"the red apple\", \"id\": \"3\"}\n";
  writer.close();
  ProcessResult r = p.wait(120);
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<nlohmann::json> lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(lines[i].at("id"), std::to_string(i));
}

// A chunk boundary changes nothing: every line is answered once, in input order.
TEST_F(EvaluatePredict, AnswersKeepTheInputOrderAcrossChunks) {
  std::string input;
  for (int i = 0; i < 700; ++i) {
    nlohmann::json q = {{"question", "what comes after red?"}, {"context", "the red apple " + std::to_string(i)}};
    if (i % 3 != 1) q["id"] = "i" + std::to_string(i);
    input += q.dump() + (i % 100 == 0 ? "\n\n" : "\n");
  }
  ProcessResult r = cpuft(predict({"--input", "-", "--question", "what?", "--context", "the red apple"}), 300, input);
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<nlohmann::json> lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 701u);
  EXPECT_FALSE(lines[0].contains("id")) << "--question comes first";
  for (int i = 0; i < 700; ++i) {
    const nlohmann::json& line = lines[static_cast<size_t>(i) + 1];
    if (i % 3 == 1)
      EXPECT_FALSE(line.contains("id")) << line;
    else
      EXPECT_EQ(line.at("id"), "i" + std::to_string(i));
  }
}

// One 64 MB line was read whole and answered with rc 0; a line over the limit is a one-line error
// naming it.
TEST_F(EvaluatePredict, InputLineOverTheLimitIsAnError) {
  const std::string file = path("long.jsonl");
  {
    std::ofstream f(file, std::ios::binary);
    f << "{\"question\": \"what?\", \"context\": \"the red apple\"}\n";
    f << "{\"question\": \"what?\", \"context\": \"";
    for (int i = 0; i < (5 << 20) / 8; ++i) f << "apple   ";
    f << "\"}\n";
  }
  ProcessResult r = cpuft(predict({"--input", file}));
  EXPECT_ONE_LINE_ERROR(r, file + ":2: line longer than 4.0 MiB");
}

}  // namespace
}  // namespace cpuft_e2e
