// The table readers of the classification jobs (data/csv_reader, data/table_file,
// data/text_classification_data, data/token_classification_data) on the inputs users get wrong or an
// attacker writes: every refusal is one line naming the file, the line, the column and the value.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "cpuft/data/csv_reader.h"
#include "cpuft/data/sequence_features.h"
#include "cpuft/data/table_file.h"
#include "cpuft/data/text_classification_data.h"
#include "cpuft/data/token_classification_data.h"
#include "cpuft/data/token_features.h"
#include "cpuft/text/tokenizer.h"
#include "cpuft/text/word_encoding.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string csv_error(const std::string& text) { return error_of([&] { parse_csv(text, "t.csv"); }); }

// Labels and examples of a training table given as text.
std::string train_error(const std::string& text, const std::string& source) {
  return error_of([&] {
    const Table t = source.size() > 4 && source.substr(source.size() - 4) == ".csv" ? parse_csv_table(text, source)
                                                                                     : parse_json_lines_table(text, source);
    const LabelSet labels = read_label_set(t);
    text_examples(t, choose_text_columns(t), labels, Split::kTrain);
  });
}

TEST(CsvReader, QuotesLineBreaksAndBlankLinesAsPandas) {
  const CsvTable t = parse_csv("\xEF\xBB\xBFs,label\r\n\"a, \"\"b\"\"\nc\",1\r\n  \t\n\nx\"y,2\r\"ab\"cd,3\nlast,", "t.csv");
  ASSERT_EQ(t.header, (std::vector<std::string>{"s", "label"}));
  ASSERT_EQ(t.records.size(), 4u);
  EXPECT_EQ(t.records[0].cells, (std::vector<std::string>{"a, \"b\"\nc", "1"}));
  EXPECT_EQ(t.records[0].line, 2);
  EXPECT_EQ(t.records[1].cells, (std::vector<std::string>{"x\"y", "2"}));  // a quote inside a field is kept
  EXPECT_EQ(t.records[1].line, 6);
  EXPECT_EQ(t.records[2].cells, (std::vector<std::string>{"abcd", "3"}));  // text after a closing quote too
  EXPECT_EQ(t.records[2].line, 7);
  EXPECT_EQ(t.records[3].cells, (std::vector<std::string>{"last", ""}));
}

TEST(CsvReader, MalformedFilesAreOneLineErrors) {
  EXPECT_EQ(csv_error("a,b\n1,2\n3,4,5\n"), "t.csv:3: more than 2 fields, expected at most 2 (one per column of the header)");
  EXPECT_EQ(csv_error("a,b\n1,2\n3\n"), "t.csv:3: 1 field, expected 2 (one per column of the header)");
  EXPECT_EQ(csv_error("a,b\n\"1,2\n3,4\n"),
            "t.csv:2: a quoted field opened on this line is not closed before the end of the file, expected a closing '\"'");
  EXPECT_EQ(csv_error("a,b\n1,\xff\n"), "t.csv:2: invalid UTF-8 at byte 6, expected UTF-8 text");
  EXPECT_EQ(csv_error(""), "t.csv: no header line, expected a CSV header such as sentence1,sentence2,label");
  EXPECT_EQ(csv_error("a,,b\n"), "t.csv:1: column 2 has no name, expected a header name");
  EXPECT_EQ(csv_error("a,b,a\n"), "t.csv:1: column name 'a' repeated (columns 1 and 3), expected unique names");
}

TEST(CsvReader, NamesWithLineBreaksStayOnOneLine) {
  // Found by fuzz/table_file_fuzz.cc: a quoted header name holding a line break.
  EXPECT_EQ(train_error("\"a\nb\",c\n1,2\n", "t.csv"),
            "t.csv: no column 'label' (run_glue takes the labels from the column 'label'); the file has a\\nb, c");
  EXPECT_EQ(csv_error("\"x\ty\",\"x\ty\"\n"), "t.csv:1: column name 'x\\ty' repeated (columns 1 and 2), expected unique names");
}

TEST(CsvReader, MillionColumnHeaderIsRefusedWhileReadingIt) {
  std::string header;
  for (int i = 0; i < 1000000; ++i) header += "c,";
  header += "label\n";
  EXPECT_EQ(csv_error(header),
            "t.csv:1: more than 1024 fields, expected at most 1024 (the most columns a table file may have)");
}

TEST(TableFile, JsonLinesKeepKeyOrderAndMissingKeys) {
  const Table t = parse_json_lines_table("{\"premise\": \"p\", \"hypothesis\": \"h\", \"label\": 1}\n\n"
                                         "{\"label\": 2.5, \"premise\": \"q\", \"extra\": [1], \"x\": null}\n",
                                         "t.json");
  EXPECT_EQ(t.columns, (std::vector<std::string>{"premise", "hypothesis", "label", "extra", "x"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[1].line, 3);
  EXPECT_EQ(t.rows[1].cells[1].kind, TableCell::Kind::kMissing);
  EXPECT_EQ(t.rows[1].cells[2].kind, TableCell::Kind::kFloat);
  EXPECT_EQ(t.rows[1].cells[3].kind, TableCell::Kind::kNested);
  EXPECT_EQ(t.rows[1].cells[4].kind, TableCell::Kind::kNull);
  EXPECT_EQ(t.rows[0].cells[2].kind, TableCell::Kind::kInteger);
  EXPECT_TRUE(is_csv_path("a/b.csv"));
  EXPECT_FALSE(is_csv_path("a/b.jsonl"));
}

TEST(TableFile, OnlyRegularFilesAreRead) {
  EXPECT_EQ(error_of([] { read_table("/nonexistent/train.csv"); }).rfind("/nonexistent/train.csv: ", 0), 0u);
  EXPECT_EQ(error_of([] { read_token_file("/"); }).rfind("/: ", 0), 0u);
  EXPECT_EQ(error_of([] { read_table("/dev/zero"); }).rfind("/dev/zero: ", 0), 0u);
}

TEST(TableFile, MalformedJsonLinesAreOneLineErrors) {
  auto e = [](const std::string& text) { return error_of([&] { parse_json_lines_table(text, "t.json"); }); };
  EXPECT_EQ(e("{\"a\": 1}\n[1, 2]\n"), "t.json:2: array, expected a JSON object (one per line)");
  EXPECT_EQ(e("{\"a\": 1}\n{\"a\": \n").rfind("t.json:2: not valid JSON at byte", 0), 0u);
  std::string keys = "{";
  for (int i = 0; i < 1100; ++i) keys += "\"k" + std::to_string(i) + "\": 0,";
  keys += "\"label\": 1}\n";
  EXPECT_EQ(e(keys), "t.json:1: key 'k1024' makes more than 1024 columns, expected at most 1024 distinct keys in the file");
}

TEST(TextClassificationData, LabelErrorsNameFileLineAndValue) {
  EXPECT_EQ(train_error("sentence,target\na,1\n", "train.csv"),
            "train.csv: no column 'label' (run_glue takes the labels from the column 'label'); the file has sentence, target");
  EXPECT_EQ(train_error("sentence,label\na,1\nb,\n", "train.csv"),
            "train.csv:3: column 'label': no label (\"\", which pandas reads as NaN), expected a label on every row");
  EXPECT_EQ(train_error("sentence,label\na,pos\nNA,neg\n", "train.csv"),
            "train.csv:3: column 'sentence': \"NA\", which pandas reads as NaN and run_glue cannot tokenise; expected text");
  EXPECT_EQ(train_error("sentence,label\na,1\nb,-1\n", "train.csv"),
            "train.csv:3: column 'label': -1, which run_glue keeps as -1 (its mark for an unlabelled row) and cannot "
            "train on; expected a class label");
  EXPECT_EQ(train_error("sentence,label\na,1.5\nb,inf\n", "train.csv"),
            "train.csv:3: column 'label': \"inf\", expected a finite regression label");
  EXPECT_EQ(train_error("{\"text\": \"a\", \"label\": 1}\n{\"text\": \"b\", \"label\": \"x\"}\n", "train.json"),
            "train.json: column 'label' mixes types: line 1 has the integer 1, line 2 has \"x\"; expected labels of one "
            "type (all strings, all integers, or all numbers for regression)");
  EXPECT_EQ(train_error("{\"text\": \"a\", \"label\": \"x\"}\n{\"text\": \"b\", \"label\": null}\n", "train.json"),
            "train.json:2: column 'label': null, expected a label (string, integer, number or true/false) on every row");
  EXPECT_EQ(train_error("{\"text\": \"a\", \"label\": \"x\"}\n{\"label\": \"y\"}\n", "train.json"),
            "train.json:2: column 'text': nothing (the key is missing), expected a string");
  EXPECT_EQ(train_error("{\"label\": \"x\"}\n", "train.json"),
            "train.json: no text column, expected a column besides 'label' (sentence1 and sentence2, or one or two text "
            "columns)");
  EXPECT_EQ(train_error("s,label\na,99999999999999999999\n", "train.csv"),
            "train.csv:2: column 'label': \"99999999999999999999\" is out of range, expected a 64-bit integer label");
}

TEST(TextClassificationData, ValidationLabelsMustBeTrainingLabels) {
  const Table train = parse_csv_table("sentence,label\na,pos\nb,neg\n", "train.csv");
  const LabelSet labels = read_label_set(train);
  const TextColumns columns = choose_text_columns(train);
  EXPECT_EQ(error_of([&] {
              text_examples(parse_csv_table("sentence,label\nc,neg\nd,maybe\n", "dev.csv"), columns, labels,
                            Split::kValidation);
            }),
            "dev.csv:3: column 'label': label \"maybe\" is not one of the 2 labels of the training file (neg, pos); "
            "run_glue stops on it with a KeyError");
  EXPECT_EQ(error_of([&] {
              text_examples(parse_csv_table("sentence\nc\n", "dev.csv"), columns, labels, Split::kValidation);
            }),
            "dev.csv: no column 'label' (run_glue scores the column 'label'); the file has sentence");
  // Test files need no labels, and whatever labels they have are not read.
  const std::vector<TextExample> test =
      text_examples(parse_csv_table("sentence,label\nc,-1\nd,whatever\n", "test.csv"), columns, labels, Split::kTest);
  ASSERT_EQ(test.size(), 2u);
  EXPECT_EQ(test[1].label, -1);
  const Table ints = parse_csv_table("sentence,label\na,1\nb,2\n", "train.csv");
  const LabelSet int_labels = read_label_set(ints);
  EXPECT_EQ(error_of([&] {
              text_examples(parse_csv_table("sentence,label\nc,x\n", "dev.csv"), columns, int_labels, Split::kValidation);
            }),
            "dev.csv:2: column 'label': \"x\", expected an integer label like those of the training file");
}

TEST(SequenceFeatures, LongestFirstTruncationAsTheTokenizersLibrary) {
  // The table of the tokenizers library's own test (truncation.rs, max_length 7): lengths 0, 2, 4, 8.
  const size_t n[] = {0, 2, 4, 8};
  const size_t want[4][4][2] = {{{0, 0}, {0, 2}, {0, 4}, {0, 7}},
                                {{2, 0}, {2, 2}, {2, 4}, {2, 5}},
                                {{4, 0}, {4, 2}, {3, 4}, {3, 4}},
                                {{7, 0}, {5, 2}, {4, 3}, {3, 4}}};
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      size_t a = 0, b = 0;
      longest_first_lengths(n[i], n[j], 7, &a, &b);
      EXPECT_EQ(a, want[i][j][0]) << n[i] << " " << n[j];
      EXPECT_EQ(b, want[i][j][1]) << n[i] << " " << n[j];
    }
  }
}

TEST(SequenceFeatures, TooShortMaxSeqLengthIsAnError) {
  const Tokenizer tokenizer = Tokenizer::load(std::string(CPUFT_FIXTURES) + "/text");
  EXPECT_EQ(error_of([&] { build_sequence_features({}, true, tokenizer, SequenceFeatureOptions{2, true}); }),
            "max_seq_length 2 cannot hold the 3 special tokens of a sentence pair, expected at least 3");
}

std::string token_error(const std::string& train, const std::string& other = "", Split split = Split::kValidation) {
  return error_of([&] {
    const TokenFile t = parse_token_file(train, "train.json");
    const TokenColumns columns = choose_token_columns(t, TokenColumnFlags{});
    const TagSet tags = read_tag_set(t, columns);
    tagged_sentences(t, columns, tags, Split::kTrain);
    if (!other.empty()) tagged_sentences(parse_token_file(other, "dev.json"), columns, tags, split);
  });
}

TEST(TokenClassificationData, ErrorsNameFileLineAndValue) {
  EXPECT_EQ(token_error("{\"tokens\": [\"a\", \"b\"], \"ner_tags\": [\"O\"]}\n"),
            "train.json:1: column 'ner_tags': 1 tags for 2 words, expected one tag per word");
  EXPECT_EQ(token_error("{\"tokens\": [\"a\", 7], \"ner_tags\": [\"O\", \"O\"]}\n"),
            "train.json:1: column 'tokens': a word number 7, expected a string");
  EXPECT_EQ(token_error("{\"tokens\": \"a b\", \"ner_tags\": [\"O\"]}\n"),
            "train.json:1: column 'tokens': string \"a b\", expected an array of words (strings)");
  EXPECT_EQ(token_error("{\"tokens\": [\"a\", \"b\"], \"ner_tags\": [\"O\", 1]}\n"),
            "train.json: column 'ner_tags' mixes string tags (line 1) and integer tags (line 1), expected tags of one type");
  EXPECT_EQ(token_error("{\"tokens\": [\"a\"], \"ner_tags\": [\"O\"]}\n", "{\"tokens\": [\"b\"], \"ner_tags\": [\"B-PER\"]}\n"),
            "dev.json:1: column 'ner_tags': tag \"B-PER\" is not one of the 1 tags of the training file; run_ner stops on "
            "it with a KeyError");
  EXPECT_EQ(token_error("{\"tokens\": [\"a\"]}\n"),
            "train.json: 1 column, expected the words ('tokens') and their tags ('ner_tags') in each line");
  EXPECT_EQ(token_error("{\"tokens\": [\"a\"], \"ner_tags\": [\"O\"]}\n", "{\"tokens\": [\"b\"]}\n"),
            "dev.json:1: column 'ner_tags': missing, expected an array of tags (strings or integers), one per word");
  // A test file needs no tags.
  EXPECT_EQ(token_error("{\"tokens\": [\"a\"], \"ner_tags\": [\"O\"]}\n", "{\"tokens\": [\"b\"]}\n", Split::kTest),
            "(no error)");
}

TEST(TokenClassificationData, IntegerTagsAreNamedByValue) {
  const TokenFile t = parse_token_file("{\"words\": [\"a\", \"b\", \"c\"], \"tags\": [10, 2, 0]}\n", "t.json");
  const TokenColumns columns = choose_token_columns(t, TokenColumnFlags{});
  EXPECT_EQ(columns.words, "words");
  EXPECT_EQ(columns.tags, "tags");
  const TagSet tags = read_tag_set(t, columns);
  EXPECT_EQ(tags.names, (std::vector<std::string>{"0", "2", "10"}));
  EXPECT_EQ(tags.b_to_i, (std::vector<int32_t>{0, 1, 2}));
  const std::vector<TaggedSentence> s = tagged_sentences(t, columns, tags, Split::kTrain);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].tags, (std::vector<int32_t>{2, 1, 0}));
}

TEST(WordEncoding, EachWordOnItsOwnAndCappedAtTheWindow) {
  const Tokenizer tokenizer = Tokenizer::load(std::string(CPUFT_FIXTURES) + "/text");
  const WordEncoding e = encode_words(tokenizer, {"Hello", "", " ", "unbelievably", "U.S."}, 100);
  EXPECT_EQ(e.word_ids.front(), 0);
  EXPECT_EQ(e.word_ids.back(), 4);
  EXPECT_EQ(std::count(e.word_ids.begin(), e.word_ids.end(), 1), 0);  // "" and " " give no token
  EXPECT_EQ(std::count(e.word_ids.begin(), e.word_ids.end(), 2), 0);
  EXPECT_GT(std::count(e.word_ids.begin(), e.word_ids.end(), 4), 1);  // "U.S." splits at its dots
  const WordEncoding capped = encode_words(tokenizer, std::vector<std::string>(1000, "unbelievably"), 10);
  EXPECT_EQ(capped.ids.size(), 11u);
  EXPECT_EQ(error_of([&] { encode_words(tokenizer, {"ok", "bad\xff"}, 10); }).rfind("word 1: invalid UTF-8", 0), 0u);
}

}  // namespace
}  // namespace cpuft
