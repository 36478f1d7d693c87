// The text- and token-classification data paths against what run_glue.py / run_ner.py make of the same
// files with datasets, pandas and the fast tokenizer (tests/fixtures/data/*_cases.json, written by
// tools/make_task_data_reference.py): the chosen columns, the label list, config.json's label2id /
// id2label, and every feature field at several lengths and paddings.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/temp_dir.h"
#include "cpuft/data/sequence_features.h"
#include "cpuft/data/table_file.h"
#include "cpuft/data/text_classification_data.h"
#include "cpuft/data/token_classification_data.h"
#include "cpuft/data/token_features.h"
#include "cpuft/text/tokenizer.h"
#include "cpuft/util/error.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

using nlohmann::json;

json fixture(const std::string& name) {
  return json::parse(read_file(std::string(CPUFT_FIXTURES) + "/data/" + name, kMaxDatasetBytes));
}

const Tokenizer& bundled_tokenizer() {
  static const Tokenizer t = Tokenizer::load(std::string(CPUFT_FIXTURES) + "/text");
  return t;
}

// Writes each split's file of a case into `dir`; returns split -> path.
std::map<std::string, std::string> write_files(const json& files, const cpuft_test::TempDir& dir) {
  std::map<std::string, std::string> paths;
  for (const auto& [split, f] : files.items()) {
    const std::string path = dir / f["name"].get<std::string>();
    std::ofstream(path, std::ios::binary) << f["text"].get<std::string>();
    paths[split] = path;
  }
  return paths;
}

template <typename T>
std::vector<int64_t> widened(const std::vector<T>& v) {
  return std::vector<int64_t>(v.begin(), v.end());
}

Split split_of(const std::string& name) {
  return name == "train" ? Split::kTrain : name == "validation" ? Split::kValidation : Split::kTest;
}

TEST(TextClassificationParity, ColumnsLabelsAndFeaturesMatchRunGlue) {
  const json cases = fixture("text_classification_cases.json")["cases"];
  ASSERT_GE(cases.size(), 10u);
  for (const json& c : cases) {
    SCOPED_TRACE(c["name"].get<std::string>());
    cpuft_test::TempDir dir;
    const auto paths = write_files(c["files"], dir);
    const Table train = read_table(paths.at("train"));
    const TextColumns columns = choose_text_columns(train);
    EXPECT_EQ(columns.sentence1, c["sentence1_key"].get<std::string>());
    EXPECT_EQ(columns.sentence2, c["sentence2_key"].is_null() ? "" : c["sentence2_key"].get<std::string>());
    const LabelSet labels = read_label_set(train);
    EXPECT_EQ(labels.regression(), c["is_regression"].get<bool>());
    EXPECT_EQ(labels.num_labels(), c["num_labels"].get<int64_t>());
    if (!labels.regression()) {
      EXPECT_EQ(labels.names, c["label_list"].get<std::vector<std::string>>());
    }
    EXPECT_EQ(config_label2id(labels), c["config_label2id"]);
    EXPECT_EQ(config_id2label(labels), c["config_id2label"]);
    std::map<std::string, std::vector<TextExample>> examples;
    for (const auto& [split, path] : paths) {
      const Table t = split == "train" ? train : read_table(path);
      examples[split] = text_examples(t, columns, labels, split_of(split));
    }
    for (const json& setting : c["features"]) {
      SequenceFeatureOptions options;
      options.max_seq_length = setting["max_seq_length"].get<int>();
      options.pad_to_max_length = setting["pad_to_max_length"].get<bool>();
      SCOPED_TRACE(testing::Message() << "max_seq_length " << options.max_seq_length << " pad "
                                      << options.pad_to_max_length);
      for (const auto& [split, rows] : setting["splits"].items()) {
        const std::vector<SequenceFeature> features =
            build_sequence_features(examples.at(split), !columns.sentence2.empty(), bundled_tokenizer(), options);
        ASSERT_EQ(features.size(), rows.size()) << split;
        for (size_t i = 0; i < rows.size(); ++i) {
          SCOPED_TRACE(testing::Message() << split << " row " << i);
          EXPECT_EQ(widened(features[i].input_ids), rows[i]["input_ids"].get<std::vector<int64_t>>());
          EXPECT_EQ(widened(features[i].token_type_ids), rows[i]["token_type_ids"].get<std::vector<int64_t>>());
          EXPECT_EQ(widened(features[i].attention_mask), rows[i]["attention_mask"].get<std::vector<int64_t>>());
          if (!rows[i].contains("label")) continue;
          if (labels.regression()) {
            EXPECT_EQ(features[i].target, rows[i]["label"].get<float>());
          } else {
            EXPECT_EQ(features[i].label, rows[i]["label"].get<int32_t>());
          }
        }
      }
    }
  }
}

// pandas' reading of a CSV label column (two cells): int64, float64, bool and strings are the label
// kinds run_glue knows; NaN (an NA spelling), infinities and integers beyond int64 are refused.
TEST(TextClassificationParity, CsvLabelTypesFollowPandas) {
  const json cases = fixture("csv_label_types.json")["cases"];
  ASSERT_GE(cases.size(), 100u);
  for (const json& c : cases) {
    const std::vector<std::string> cells = c["cells"].get<std::vector<std::string>>();
    SCOPED_TRACE(c.dump());
    std::string csv = "a,label\n";
    for (const std::string& cell : cells) {
      std::string quoted;
      for (char ch : cell) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      csv += "q,\"" + quoted + "\"\n";
    }
    const std::string dtype = c["dtype"].get<std::string>();
    bool refused = dtype == "uint64" || dtype == "object" ? true : false;
    for (const json& v : c["values"]) {
      if (v.is_null()) refused = true;
      if (v.is_string() && (v == "inf" || v == "-inf") && dtype == "float64") refused = true;
    }
    if (dtype == "object") refused = true;  // ints beyond int64, or NaN among booleans
    const Table t = parse_csv_table(csv, "t.csv");
    if (refused) {
      EXPECT_THROW(read_label_set(t), Error);
      continue;
    }
    const LabelSet labels = read_label_set(t);
    const LabelKind want = dtype == "int64" ? LabelKind::kInteger
                           : dtype == "float64" ? LabelKind::kFloat
                           : dtype == "bool"    ? LabelKind::kBool
                                                : LabelKind::kString;
    EXPECT_EQ(static_cast<int>(labels.kind), static_cast<int>(want));
    if (want == LabelKind::kFloat) {
      const std::vector<TextExample> ex = text_examples(t, choose_text_columns(t), labels, Split::kTrain);
      for (size_t i = 0; i < ex.size(); ++i)
        EXPECT_EQ(ex[i].target, static_cast<float>(std::stod(c["values"][i].get<std::string>())));
    } else if (want == LabelKind::kString) {
      for (const json& v : c["values"]) {
        const std::string s = v.get<std::string>();
        EXPECT_NE(std::find(labels.names.begin(), labels.names.end(), s), labels.names.end()) << s;
      }
    }
  }
}

TEST(TokenClassificationParity, LabelsAndSubTokenAlignmentMatchRunNer) {
  const json cases = fixture("token_classification_cases.json")["cases"];
  ASSERT_GE(cases.size(), 2u);
  for (const json& c : cases) {
    SCOPED_TRACE(c["name"].get<std::string>());
    cpuft_test::TempDir dir;
    const auto paths = write_files(c["files"], dir);
    const TokenFile train = read_token_file(paths.at("train"));
    const TokenColumns columns = choose_token_columns(train, TokenColumnFlags{});
    EXPECT_EQ(columns.words, c["text_column"].get<std::string>());
    EXPECT_EQ(columns.tags, c["label_column"].get<std::string>());
    const TagSet tags = read_tag_set(train, columns);
    EXPECT_EQ(tags.names, c["label_list"].get<std::vector<std::string>>());
    EXPECT_EQ(widened(tags.b_to_i), c["b_to_i_label"].get<std::vector<int64_t>>());
    std::map<std::string, std::vector<TaggedSentence>> sentences;
    for (const auto& [split, path] : paths)
      sentences[split] = tagged_sentences(split == "train" ? train : read_token_file(path), columns, tags,
                                          split_of(split));
    for (const json& setting : c["features"]) {
      TokenFeatureOptions options;
      options.max_seq_length = setting["max_seq_length"].get<int>();
      options.pad_to_max_length = setting["pad_to_max_length"].get<bool>();
      options.label_all_tokens = setting["label_all_tokens"].get<bool>();
      SCOPED_TRACE(setting.dump().substr(0, 80));
      for (const auto& [split, rows] : setting["splits"].items()) {
        const std::vector<TokenFeature> features =
            build_token_features(sentences.at(split), tags, bundled_tokenizer(), options);
        ASSERT_EQ(features.size(), rows.size());
        for (size_t i = 0; i < rows.size(); ++i) {
          SCOPED_TRACE(testing::Message() << split << " row " << i);
          const TokenFeature& f = features[i];
          EXPECT_EQ(widened(f.input_ids), rows[i]["input_ids"].get<std::vector<int64_t>>());
          EXPECT_EQ(widened(f.attention_mask), rows[i]["attention_mask"].get<std::vector<int64_t>>());
          EXPECT_EQ(widened(f.token_type_ids), rows[i]["token_type_ids"].get<std::vector<int64_t>>());
          EXPECT_EQ(widened(f.labels), rows[i]["labels"].get<std::vector<int64_t>>());
          EXPECT_EQ(widened(f.word_ids), rows[i]["word_ids"].get<std::vector<int64_t>>());
          const std::vector<uint8_t> scored = scored_positions(f, options.label_all_tokens);
          for (size_t t = 0; t < scored.size(); ++t) EXPECT_EQ(scored[t] != 0, f.labels[t] != kIgnoreLabel) << t;
        }
      }
    }
  }
}

template <typename T>
void fnv_mix(uint64_t& h, const std::vector<T>& values) {
  for (T v : values) h = (h ^ (static_cast<uint64_t>(static_cast<int64_t>(v)) & 0xFFFFFFFFu)) * 0x100000001B3ull;
}

std::string hex(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// The bundled real datasets (data/snli-mini, data/wnut17-mini): label lists, and every feature field at 128
// tokens without padding, by count and FNV-1a hash.
TEST(TaskDataParity, BundledDatasetsGiveRunGlueAndRunNerFeatures) {
  const json cases = fixture("bundled_task_data.json")["cases"];
  ASSERT_EQ(cases.size(), 2u);
  const std::string data = std::string(CPUFT_SOURCE_DIR) + "/data/";
  const json& snli = cases[0];
  const Table train = read_table(data + "snli-mini/train.csv");
  const TextColumns columns = choose_text_columns(train);
  const LabelSet labels = read_label_set(train);
  EXPECT_EQ(labels.names, snli["label_list"].get<std::vector<std::string>>());
  for (const auto& [split, want] : snli["splits"].items()) {
    const Table t = split == "train" ? train : read_table(data + "snli-mini/" + split + ".csv");
    const auto features = build_sequence_features(text_examples(t, columns, labels, split_of(split)), true,
                                                  bundled_tokenizer(), SequenceFeatureOptions{128, false});
    uint64_t h = 0xCBF29CE484222325ull;
    for (const SequenceFeature& f : features) {
      fnv_mix(h, f.input_ids), fnv_mix(h, f.token_type_ids), fnv_mix(h, f.attention_mask);
      fnv_mix(h, std::vector<int32_t>{f.label});
    }
    EXPECT_EQ(features.size(), want["count"].get<size_t>()) << split;
    EXPECT_EQ(hex(h), want["hash"].get<std::string>()) << split;
  }
  const json& wnut = cases[1];
  const TokenFile wtrain = read_token_file(data + "wnut17-mini/train.json");
  const TokenColumns wcolumns = choose_token_columns(wtrain, TokenColumnFlags{});
  const TagSet tags = read_tag_set(wtrain, wcolumns);
  EXPECT_EQ(tags.names, wnut["label_list"].get<std::vector<std::string>>());
  for (const auto& [split, want] : wnut["splits"].items()) {
    const TokenFile f = split == "train" ? wtrain : read_token_file(data + "wnut17-mini/" + split + ".json");
    const auto features = build_token_features(tagged_sentences(f, wcolumns, tags, split_of(split)), tags,
                                               bundled_tokenizer(), TokenFeatureOptions{128, false, false});
    uint64_t h = 0xCBF29CE484222325ull;
    for (const TokenFeature& t : features) fnv_mix(h, t.input_ids), fnv_mix(h, t.attention_mask), fnv_mix(h, t.labels);
    EXPECT_EQ(features.size(), want["count"].get<size_t>()) << split;
    EXPECT_EQ(hex(h), want["hash"].get<std::string>()) << split;
  }
}

// What the Python pipeline stops on (or silently misreads), cpuft refuses in one line naming the file.
TEST(TaskDataParity, InputsThePythonPipelineCannotTakeAreOneLineErrors) {
  const json cases = fixture("table_rejections.json")["cases"];
  ASSERT_GE(cases.size(), 15u);
  for (const json& c : cases) {
    const std::string name = c["name"].get<std::string>();
    SCOPED_TRACE(name + " (python: " + c["python"].get<std::string>() + ")");
    cpuft_test::TempDir dir;
    const auto paths = write_files(c["files"], dir);
    std::string message;
    try {
      if (c["job"] == "text-classification") {
        const Table train = read_table(paths.at("train"));
        const TextColumns columns = choose_text_columns(train);
        const LabelSet labels = read_label_set(train);
        for (const auto& [split, path] : paths) text_examples(read_table(path), columns, labels, split_of(split));
      } else {
        const TokenFile train = read_token_file(paths.at("train"));
        const TokenColumns columns = choose_token_columns(train, TokenColumnFlags{});
        const TagSet tags = read_tag_set(train, columns);
        for (const auto& [split, path] : paths) tagged_sentences(read_token_file(path), columns, tags, split_of(split));
      }
    } catch (const Error& e) {
      message = e.what();
    }
    if (name == "int_tags") {  // run_ner cannot take integer tags from JSON; cpuft can
      EXPECT_EQ(message, "");
      continue;
    }
    ASSERT_NE(message, "") << "accepted";
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_NE(message.find(dir.path()), std::string::npos) << message;  // names the file
  }
}

}  // namespace
}  // namespace cpuft
