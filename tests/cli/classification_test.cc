// The classification jobs through the binary (docs/tasks.md): `cpuft train --task text-classification |
// token-classification` on the bundled data (data/snli-mini, data/wnut17-mini), evaluation, prediction
// and the files run_glue / run_ner write; a resumed classification run; hostile inputs.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cli/e2e_fixture.h"

namespace cpuft_e2e {
namespace {

const std::string kSnli = CPUFT_SOURCE_DIR "/data/snli-mini/";
const std::string kWnut = CPUFT_SOURCE_DIR "/data/wnut17-mini/";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class ClassificationTest : public E2eTest {
 protected:
  Args train_flags(const std::string& task, const std::string& out) {
    return concat({"train", "--task", task, "--model_name_or_path", model_, "--output_dir", out, "--do_train",
                   "--do_eval", "--max_steps", "4", "--per_device_train_batch_size", "4", "--learning_rate", "1e-3",
                   "--max_train_samples", "32", "--max_eval_samples", "24", "--logging_steps", "2",
                   "--save_steps", "2", "--seed", "3"},
                  tiny_flags());
  }
  void SetUp() override {
    E2eTest::SetUp();
    model_ = tiny_model();
  }
  std::string model_;
};

TEST_F(ClassificationTest, TextClassificationTrainsEvaluatesAndPredicts) {
  const std::string out = path("glue");
  ProcessResult r = cpuft(concat(train_flags("text-classification", out),
                                 {"--train_file", kSnli + "train.csv", "--validation_file", kSnli + "validation.csv"}),
                          300);
  ASSERT_EQ(r.status, 0) << r.err;
  // SNLI pairs padded to 64 (run_glue's default padding): the notice speaks of sequences.
  EXPECT_NE(r.err.find("% of the positions an epoch computes are padding (every sequence padded to --max_seq_length "
                       "64); --pad_to_max_length false --group_by_length would compute "),
            std::string::npos)
      << r.err;
  const nlohmann::json config = read_json(out + "/config.json");
  EXPECT_EQ(config["architectures"], nlohmann::json::array({"BertForSequenceClassification"}));
  EXPECT_EQ(config["id2label"], (nlohmann::json{{"0", "contradiction"}, {"1", "entailment"}, {"2", "neutral"}}));
  EXPECT_EQ(config["label2id"], (nlohmann::json{{"contradiction", 0}, {"entailment", 1}, {"neutral", 2}}));
  EXPECT_EQ(config["problem_type"], "single_label_classification");
  cpuft::SafetensorsReader st(out + "/model.safetensors");
  EXPECT_NE(st.find("bert.pooler.dense.weight"), nullptr);
  EXPECT_NE(st.find("classifier.weight"), nullptr);
  EXPECT_EQ(st.find("qa_outputs.weight"), nullptr);
  const nlohmann::json eval = read_json(out + "/eval_results.json");
  for (const char* key : {"eval_loss", "eval_accuracy", "eval_samples", "eval_runtime", "epoch"})
    EXPECT_TRUE(eval.contains(key)) << key << " in " << eval.dump();
  EXPECT_EQ(eval["eval_samples"], 24);
  EXPECT_GE(eval["eval_accuracy"].get<double>(), 0.0);
  EXPECT_LE(eval["eval_accuracy"].get<double>(), 1.0);

  // cpuft evaluate on the output reads the labels from its config.json and scores the same.
  r = cpuft(concat({"evaluate", "--model_name_or_path", out, "--validation_file", kSnli + "validation.csv",
                    "--max_eval_samples", "24", "--output_dir", path("ev")},
                   tiny_flags()));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_json(path("ev") + "/eval_results.json")["eval_accuracy"], eval["eval_accuracy"]);

  // A test file without labels: predict_results_None.txt as run_glue writes it.
  write_text(path("test.csv"), "sentence1,sentence2\nA man is sleeping.,Nobody sleeps.\nA dog runs.,An animal moves.\n");
  r = cpuft(concat({"predict", "--model_name_or_path", out, "--test_file", path("test.csv"), "--output_dir", path("pr")},
                   tiny_flags()));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> lines = lines_of(slurp(path("pr") + "/predict_results_None.txt"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "index\tprediction");
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string label = lines[i].substr(lines[i].find('\t') + 1);
    EXPECT_EQ(lines[i].substr(0, lines[i].find('\t')), std::to_string(i - 1));
    EXPECT_TRUE(label == "contradiction" || label == "entailment" || label == "neutral") << lines[i];
  }
}

TEST_F(ClassificationTest, TokenClassificationTrainsEvaluatesAndPredicts) {
  const std::string out = path("ner");
  ProcessResult r = cpuft(concat(train_flags("token-classification", out),
                                 {"--train_file", kWnut + "train.json", "--validation_file", kWnut + "validation.json"}),
                          300);
  ASSERT_EQ(r.status, 0) << r.err;
  // WNUT-17 sentences padded to 64 (cpuft's default padding): the notice speaks of sequences.
  EXPECT_NE(r.err.find("% of the positions an epoch computes are padding (every sequence padded to --max_seq_length "
                       "64); --pad_to_max_length false --group_by_length would compute "),
            std::string::npos)
      << r.err;
  const nlohmann::json config = read_json(out + "/config.json");
  EXPECT_EQ(config["architectures"], nlohmann::json::array({"BertForTokenClassification"}));
  EXPECT_EQ(config["id2label"].size(), 13u);
  EXPECT_EQ(config["id2label"]["0"], "B-corporation");
  EXPECT_FALSE(config.contains("problem_type"));
  cpuft::SafetensorsReader st(out + "/model.safetensors");
  EXPECT_EQ(st.find("bert.pooler.dense.weight"), nullptr);  // add_pooling_layer=False
  const nlohmann::json eval = read_json(out + "/eval_results.json");
  for (const char* key : {"eval_loss", "eval_precision", "eval_recall", "eval_f1", "eval_accuracy", "eval_samples"})
    EXPECT_TRUE(eval.contains(key)) << key << " in " << eval.dump();

  // predictions.txt: one line per sentence, one tag per word.
  write_text(path("test.json"), "{\"tokens\": [\"I\", \"love\", \"Paris\"]}\n{\"tokens\": [\"Hello\", \"world\"]}\n");
  r = cpuft(concat({"predict", "--model_name_or_path", out, "--test_file", path("test.json"), "--output_dir", path("pr")},
                   tiny_flags()));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> lines = lines_of(slurp(path("pr") + "/predictions.txt"));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(std::count(lines[0].begin(), lines[0].end(), ' '), 2);
  EXPECT_EQ(std::count(lines[1].begin(), lines[1].end(), ' '), 1);
}

TEST_F(ClassificationTest, ResumedRunEndsInTheUninterruptedModel) {
  const Args data = {"--train_file", kSnli + "train.csv", "--validation_file", kSnli + "validation.csv"};
  ProcessResult r = cpuft(concat(train_flags("text-classification", path("full")), data), 300);
  ASSERT_EQ(r.status, 0) << r.err;
  // Training again from its step-2 checkpoint ends in the same weights.
  r = cpuft(concat(concat(train_flags("text-classification", path("part")), data),
                   {"--resume_from_checkpoint", path("full") + "/checkpoint-2"}),
            300);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(path("part") + "/model.safetensors"), slurp(path("full") + "/model.safetensors"));
  // A checkpoint of one job does not resume another.
  r = cpuft(concat(concat(train_flags("token-classification", path("part")),
                          {"--train_file", kWnut + "train.json", "--validation_file", kWnut + "validation.json"}),
                   {"--resume_from_checkpoint", path("full") + "/checkpoint-2"}),
            300);
  EXPECT_EQ(r.status, 1) << r.err;
}

TEST_F(ClassificationTest, HostileInputsAreOneLineErrors) {
  auto run = [&](const std::string& train, const std::string& validation) {
    return cpuft(concat(train_flags("text-classification", path("o")),
                        {"--train_file", train, "--validation_file", validation}));
  };
  write_text(path("nolabel.csv"), "sentence1,sentence2\na,b\n");
  EXPECT_ONE_LINE_ERROR(run(path("nolabel.csv"), path("nolabel.csv")), "nolabel.csv", "label");
  write_text(path("mixed.json"), "{\"sentence1\": \"a\", \"label\": 1}\n{\"sentence1\": \"b\", \"label\": \"x\"}\n");
  EXPECT_ONE_LINE_ERROR(run(path("mixed.json"), path("mixed.json")), "mixed.json");
  write_text(path("train.csv"), "sentence1,label\na,x\nb,y\n");
  write_text(path("unseen.csv"), "sentence1,label\na,z\n");
  EXPECT_ONE_LINE_ERROR(run(path("train.csv"), path("unseen.csv")), "unseen.csv", "z");
  {
    std::ofstream wide(path("wide.csv"));
    for (int i = 0; i < 1000000; ++i) wide << "c" << i << ",";
    wide << "label\n";
  }
  EXPECT_ONE_LINE_ERROR(run(path("wide.csv"), path("wide.csv")), "wide.csv");
  // A test file with no text column (only the label) for a trained classifier.
  ProcessResult r = cpuft(concat(train_flags("text-classification", path("good")),
                                 {"--train_file", path("train.csv"), "--validation_file", path("train.csv")}));
  ASSERT_EQ(r.status, 0) << r.err;
  write_text(path("labels_only.csv"), "label\nx\n");
  EXPECT_ONE_LINE_ERROR(cpuft(concat({"predict", "--model_name_or_path", path("good"), "--test_file",
                                      path("labels_only.csv"), "--output_dir", path("pr")},
                                     tiny_flags())),
                        "labels_only.csv", "text column");
}

}  // namespace
}  // namespace cpuft_e2e
