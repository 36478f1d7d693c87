#include "cpuft/data/token_classification_data.h"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "cpuft/data/csv_reader.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/memory.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

using json = nlohmann::json;

std::string at(const TokenFile& f, int64_t line, const std::string& column) {
  return str_cat(f.path, ":", line, ": column '", text_preview(column), "'");
}

const json& tags_of(const TokenFile& f, int64_t line, const json& obj, const std::string& column) {
  auto it = obj.find(column);
  if (it == obj.end() || !it->is_array())
    fail(at(f, line, column), ": ", it == obj.end() ? "missing" : json_describe(*it),
         ", expected an array of tags (strings or integers), one per word");
  return *it;
}

std::string tag_key(const json& tag) { return tag.is_string() ? tag.get<std::string>() : tag.dump(); }

}  // namespace

TokenFile parse_token_file(std::string text, const std::string& source) {
  TokenFile f;
  f.path = source;
  f.text = std::move(text);
  std::unordered_set<std::string> seen;
  for_each_json_object_line(f.text, source, [&](int64_t n, std::string_view line, const json&) {
    const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(line.begin(), line.end());
    for (const auto& item : ordered.items()) {
      if (seen.count(item.key())) continue;
      if (f.columns.size() == kMaxTableColumns)
        fail(source, ":", n, ": key '", text_preview(item.key()), "' makes more than ", kMaxTableColumns,
             " columns, expected at most ", kMaxTableColumns, " distinct keys in the file");
      seen.insert(item.key());
      f.columns.push_back(item.key());
    }
  });
  return f;
}

TokenFile read_token_file(const std::string& path) { return parse_token_file(read_file(path, kMaxDatasetBytes), path); }

TokenColumns choose_token_columns(const TokenFile& file, const TokenColumnFlags& flags) {
  auto has = [&](const std::string& c) { return std::find(file.columns.begin(), file.columns.end(), c) != file.columns.end(); };
  TokenColumns c;
  if (!flags.text_column_name.empty()) c.words = flags.text_column_name;
  else if (has("tokens")) c.words = "tokens";
  else if (!file.columns.empty()) c.words = file.columns[0];
  const std::string task_tags = flags.task_name + "_tags";
  if (!flags.label_column_name.empty()) c.tags = flags.label_column_name;
  else if (has(task_tags)) c.tags = task_tags;
  else if (file.columns.size() >= 2) c.tags = file.columns[1];
  if (c.words.empty() || c.tags.empty())
    fail(file.path, ": ", file.columns.size(), file.columns.size() == 1 ? " column" : " columns",
         ", expected the words ('tokens') and their tags ('", task_tags, "') in each line");
  for (const std::string* name : {&c.words, &c.tags})
    if (!has(*name)) fail(file.path, ": no column '", text_preview(*name), "' in any line");
  return c;
}

TagSet read_tag_set(const TokenFile& train, const TokenColumns& columns) {
  std::map<std::string, json> strings;
  std::map<int64_t, json> integers;
  int64_t first_string = 0, first_integer = 0;
  for_each_json_object_line(train.text, train.path, [&](int64_t n, std::string_view, const json& obj) {
    for (const json& t : tags_of(train, n, obj, columns.tags)) {
      if (t.is_string()) {
        strings.emplace(t.get<std::string>(), t);
        if (!first_string) first_string = n;
      } else if (t.is_number_integer()) {
        integers.emplace(t.get<int64_t>(), t);
        if (!first_integer) first_integer = n;
      } else {
        fail(at(train, n, columns.tags), ": a tag ", json_describe(t), ", expected strings or integers");
      }
    }
  });
  if (!strings.empty() && !integers.empty())
    fail(train.path, ": column '", text_preview(columns.tags), "' mixes string tags (line ", first_string,
         ") and integer tags (line ", first_integer, "), expected tags of one type");
  TagSet set;
  set.integer = !integers.empty();
  for (const auto& [s, v] : strings) set.names.push_back(s), set.values.push_back(v);  // byte order = code points
  for (const auto& [i, v] : integers) set.names.push_back(std::to_string(i)), set.values.push_back(v);
  if (set.names.empty())
    fail(train.path, ": no tags in column '", text_preview(columns.tags), "', expected at least one");
  for (size_t i = 0; i < set.names.size(); ++i) {
    int32_t to = static_cast<int32_t>(i);
    const std::string& label = set.names[i];
    if (!set.integer && label.rfind("B-", 0) == 0) {
      std::string inside = label;  // str.replace("B-", "I-"): every occurrence
      for (size_t p = inside.find("B-"); p != std::string::npos; p = inside.find("B-", p + 2)) inside.replace(p, 2, "I-");
      auto it = std::find(set.names.begin(), set.names.end(), inside);
      if (it != set.names.end()) to = static_cast<int32_t>(it - set.names.begin());
    }
    set.b_to_i.push_back(to);
  }
  return set;
}

std::vector<TaggedSentence> tagged_sentences(const TokenFile& file, const TokenColumns& columns, const TagSet& tags,
                                             Split split) {
  std::map<std::string, int32_t> id_of;
  for (size_t i = 0; i < tags.values.size(); ++i) id_of.emplace(tag_key(tags.values[i]), static_cast<int32_t>(i));
  std::vector<TaggedSentence> out;
  uint64_t bytes = 0;
  for_each_json_object_line(file.text, file.path, [&](int64_t n, std::string_view line, const json& obj) {
    TaggedSentence s;
    s.line = n;
    auto words = obj.find(columns.words);
    if (words == obj.end() || !words->is_array())
      fail(at(file, n, columns.words), ": ", words == obj.end() ? "missing" : json_describe(*words),
           ", expected an array of words (strings)");
    for (const json& w : *words) {
      if (!w.is_string()) fail(at(file, n, columns.words), ": a word ", json_describe(w), ", expected a string");
      s.words.push_back(w.get<std::string>());
    }
    const bool need_tags = split != Split::kTest || obj.contains(columns.tags);
    if (need_tags) {
      const json& t = tags_of(file, n, obj, columns.tags);
      if (t.size() != s.words.size())
        fail(at(file, n, columns.tags), ": ", t.size(), " tags for ", s.words.size(),
             " words, expected one tag per word");
      for (const json& tag : t) {
        if (!tag.is_string() && !tag.is_number_integer())
          fail(at(file, n, columns.tags), ": a tag ", json_describe(tag), ", expected strings or integers");
        auto it = id_of.find(tag_key(tag));
        if (it == id_of.end() || tag.is_string() == tags.integer)
          fail(at(file, n, columns.tags), ": tag ", json_preview(tag), " is not one of the ", tags.names.size(),
               " tags of the training file; run_ner stops on it with a KeyError");
        s.tags.push_back(it->second);
      }
    }
    bytes += line.size() + sizeof(TaggedSentence) + s.words.size() * (sizeof(std::string) + 4);
    if (out.size() % 4096 == 4095) check_fits_in_memory(bytes, str_cat(file.path, ": ", out.size() + 1, " sentences"));
    out.push_back(std::move(s));
  });
  return out;
}

}  // namespace cpuft
