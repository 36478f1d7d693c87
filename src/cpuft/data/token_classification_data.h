// run_ner.py's reading of its --train_file / --validation_file / --test_file as JSON lines (docs/tasks.md,
// Data): the words are the column --text_column_name, else "tokens", else the first column; the tags are
// --label_column_name, else "<task_name>_tags" (ner_tags), else the second column (columns in order of
// first appearance, as datasets orders them). JSON files carry no ClassLabel, so the label list is the
// training tags' unique values sorted as Python sorts them, ids by position. b_to_i_label maps each
// "B-X" to "I-X" where that label exists (for --label_all_tokens).
//
// Tags may be strings or integers (run_ner itself stops on integer tags read from JSON: it calls
// label.startswith); integers are named by their decimal text and map to themselves under b_to_i.
// Refused, with one line naming file, line and value: a words value that is not an array of strings, tags
// that are not an array of one type or not as many as the words, a validation tag the training file does
// not have (run_ner stops there with a KeyError), and every malformed line. Test files need no tags.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cpuft/data/text_classification_data.h"

namespace cpuft {

// A JSON lines file read once: its text and its columns (keys in order of first appearance).
struct TokenFile {
  std::string path;
  std::string text;
  std::vector<std::string> columns;
};

struct TokenColumnFlags {
  std::string text_column_name;   // --text_column_name ("" when not given)
  std::string label_column_name;  // --label_column_name
  std::string task_name = "ner";  // --task_name
};

struct TokenColumns {
  std::string words;
  std::string tags;
};

struct TagSet {
  bool integer = false;              // the tags are integers
  std::vector<std::string> names;    // run_ner's label_list, as str() prints each
  std::vector<nlohmann::json> values;
  std::vector<int32_t> b_to_i;       // run_ner's b_to_i_label
};

struct TaggedSentence {
  int64_t line = 0;
  std::vector<std::string> words;
  std::vector<int32_t> tags;  // ids into TagSet::names, one per word; empty for a test line without tags
};

TokenFile parse_token_file(std::string text, const std::string& source);
TokenFile read_token_file(const std::string& path);  // at most kMaxDatasetBytes

TokenColumns choose_token_columns(const TokenFile& file, const TokenColumnFlags& flags);

TagSet read_tag_set(const TokenFile& train, const TokenColumns& columns);

std::vector<TaggedSentence> tagged_sentences(const TokenFile& file, const TokenColumns& columns, const TagSet& tags,
                                             Split split);

}  // namespace cpuft
