#include "cpuft/data/squad_reader.h"

#include <nlohmann/json.hpp>

#include <unordered_map>

#include "cpuft/text/utf8.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

using nlohmann::json;

// Walks the nested SQuAD layout, keeping the JSON path of the node being read for errors.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void bad(const std::string& path, const std::string& found, const char* expected) {
    fail(source_, ": ", path, ": found ", found, ", expected ", expected);
  }

  const json& member(const json& obj, const std::string& path, const char* key, const char* expected) {
    auto it = obj.find(key);
    if (it == obj.end()) bad(path.empty() ? key : path + "." + key, "nothing (missing)", expected);
    return *it;
  }

  const json& array_member(const json& obj, const std::string& path, const char* key) {
    const json& v = member(obj, path, key, "an array");
    if (!v.is_array()) bad(path.empty() ? key : path + "." + key, json_describe(v), "an array");
    return v;
  }

  std::string string_member(const json& obj, const std::string& path, const char* key) {
    const json& v = member(obj, path, key, "a string");
    if (!v.is_string()) bad(path + "." + key, json_describe(v), "a string");
    return v.get<std::string>();
  }

  void check_object(const json& v, const std::string& path) {
    if (!v.is_object()) bad(path, json_describe(v), "an object");
  }

  SquadDataset read(const json& root) {
    SquadDataset out;
    if (!root.is_object()) bad("(top level)", json_describe(root), "an object with a \"data\" array");
    auto version = root.find("version");
    if (version != root.end()) {
      if (!version->is_string()) bad("version", json_describe(*version), "a string such as \"1.1\" or \"v2.0\"");
      const std::string v = version->get<std::string>();
      if (v == "v2.0" || v == "2.0") out.version = 2;
    }
    const json& data = array_member(root, "", "data");
    for (size_t a = 0; a < data.size(); ++a) {
      const std::string apath = str_cat("data[", a, "]");
      check_object(data[a], apath);
      std::string title;
      if (auto t = data[a].find("title"); t != data[a].end()) {
        if (!t->is_string()) bad(apath + ".title", json_describe(*t), "a string");
        title = t->get<std::string>();
      }
      if (!data[a].contains("paragraphs") && data[a].contains("context")) {
        read_flat_record(data[a], apath, title, out);
        continue;
      }
      const json& paragraphs = array_member(data[a], apath, "paragraphs");
      for (size_t p = 0; p < paragraphs.size(); ++p) {
        const std::string ppath = str_cat(apath, ".paragraphs[", p, "]");
        check_object(paragraphs[p], ppath);
        read_paragraph(paragraphs[p], ppath, title, out);
      }
    }
    return out;
  }

 private:
  void read_paragraph(const json& para, const std::string& ppath, const std::string& title, SquadDataset& out) {
    const std::string context = string_member(para, ppath, "context");
    const std::vector<size_t> at = code_point_byte_offsets(context);
    const json& qas = array_member(para, ppath, "qas");
    for (size_t q = 0; q < qas.size(); ++q) {
      const std::string qpath = str_cat(ppath, ".qas[", q, "]");
      check_object(qas[q], qpath);
      Example ex;
      ex.id = string_member(qas[q], qpath, "id");
      ex.title = title;
      ex.context = context;
      ex.question = string_member(qas[q], qpath, "question");
      if (auto imp = qas[q].find("is_impossible"); imp != qas[q].end()) {
        if (!imp->is_boolean()) bad(qpath + ".is_impossible", json_describe(*imp), "true or false");
        ex.is_impossible = imp->get<bool>();
      }
      const json& answers = array_member(qas[q], qpath, "answers");
      for (size_t k = 0; k < answers.size(); ++k) {
        const std::string kpath = str_cat(qpath, ".answers[", k, "]");
        check_object(answers[k], kpath);
        add_answer(string_member(answers[k], kpath, "text"), member(answers[k], kpath, "answer_start", "an integer"),
                   kpath + ".answer_start", at, ex, out);
      }
      add_example(std::move(ex), qpath, out);
    }
  }

  // The flat form of the Hub datasets (docs/parity.md, SQuAD input), as run_qa's --validation_file takes:
  // {"id", "title", "context", "question", "answers": {"text": [...], "answer_start": [...]}}.
  void read_flat_record(const json& rec, const std::string& path, const std::string& title, SquadDataset& out) {
    Example ex;
    ex.id = string_member(rec, path, "id");
    ex.title = title;
    ex.context = string_member(rec, path, "context");
    ex.question = string_member(rec, path, "question");
    const std::vector<size_t> at = code_point_byte_offsets(ex.context);
    const json& answers = member(rec, path, "answers", "an object {\"text\": [...], \"answer_start\": [...]}");
    if (!answers.is_object())
      bad(path + ".answers", json_describe(answers), "an object {\"text\": [...], \"answer_start\": [...]}");
    const json& texts = array_member(answers, path + ".answers", "text");
    const json& starts = array_member(answers, path + ".answers", "answer_start");
    if (texts.size() != starts.size()) {
      bad(path + ".answers.answer_start", str_cat(starts.size(), " entries"),
          str_cat("one per answers.text entry (", texts.size(), ")").c_str());
    }
    for (size_t k = 0; k < texts.size(); ++k) {
      const std::string kpath = str_cat(path, ".answers.text[", k, "]");
      if (!texts[k].is_string()) bad(kpath, json_describe(texts[k]), "a string");
      add_answer(texts[k].get<std::string>(), starts[k], str_cat(path, ".answers.answer_start[", k, "]"), at, ex, out);
    }
    add_example(std::move(ex), path, out);
  }

  // Checks answer_start against the context (code points) and counts answers not found there.
  void add_answer(std::string text, const json& start, const std::string& spath, const std::vector<size_t>& at,
                  Example& ex, SquadDataset& out) {
    const int64_t context_len = static_cast<int64_t>(at.size()) - 1;
    if (!start.is_number_integer()) bad(spath, json_describe(start), "an integer");
    if (start.is_number_unsigned() ? start.get<uint64_t>() > static_cast<uint64_t>(context_len)
                                   : start.get<int64_t>() < 0 || start.get<int64_t>() > context_len) {
      bad(spath, json_describe(start),
          str_cat("a code-point index in [0, ", context_len, "] (the context has ", context_len, " code points)")
              .c_str());
    }
    Answer ans;
    ans.text = std::move(text);
    ans.answer_start = start.get<int64_t>();
    const int64_t text_len = static_cast<int64_t>(count_code_points(ans.text));
    const int64_t end = std::min(ans.answer_start + text_len, context_len);
    if (ans.answer_start + text_len > context_len ||
        ex.context.compare(at[ans.answer_start], at[end] - at[ans.answer_start], ans.text) != 0) {
      ++out.mismatched_answers;
    }
    ex.answers.push_back(std::move(ans));
  }

  void add_example(Example&& ex, const std::string& path, SquadDataset& out) {
    if (ex.is_impossible || ex.answers.empty()) out.version = 2;
    auto [it, inserted] = first_path_of_id_.emplace(ex.id, path);
    if (!inserted) bad(path + ".id", str_cat(json_preview(ex.id), " (already used at ", it->second, ")"), "a unique id");
    out.examples.push_back(std::move(ex));
  }

  const std::string& source_;
  std::unordered_map<std::string, std::string> first_path_of_id_;
};

}  // namespace

SquadDataset parse_squad(std::string_view json_text, const std::string& source) {
  JsonReadOptions options;
  options.expected = "a SQuAD JSON document";
  return Reader(source).read(parse_json(json_text, source, options));
}

SquadDataset read_squad(const std::string& path) { return parse_squad(read_file(path, kMaxDatasetBytes), path); }

}  // namespace cpuft
