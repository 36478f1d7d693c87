// Tokenizer::load: reads a Hugging Face tokenizer directory (docs/parity.md, Tokenizer).
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "cpuft/text/tokenizer.h"
#include "cpuft/text/tokenizer_files.h"
#include "cpuft/text/utf8.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string type_name(const json& j) { return j.type_name(); }

// Field `key` of `obj` when it has the JSON type `check` accepts; `fallback` when missing (or null).
template <typename T, typename Check>
T field(const json& obj, const char* key, T fallback, Check check, const char* expected, const std::string& file,
        const std::string& path) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!check(*it)) fail(file, ": ", path, key, ": found ", json_describe(*it), ", expected ", expected);
  return it->template get<T>();
}

bool bool_field(const json& obj, const char* key, bool fallback, const std::string& file, const std::string& path) {
  return field<bool>(
      obj, key, fallback, [](const json& j) { return j.is_boolean(); }, "true or false", file, path);
}

std::string string_field(const json& obj, const char* key, const std::string& fallback, const std::string& file,
                         const std::string& path) {
  return field<std::string>(
      obj, key, fallback, [](const json& j) { return j.is_string(); }, "a string", file, path);
}

std::optional<bool> optional_bool_field(const json& obj, const char* key, const std::string& file,
                                        const std::string& path) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  return bool_field(obj, key, false, file, path);
}

const json& object_field(const json& obj, const char* key, const std::string& file, const std::string& path) {
  const auto it = obj.find(key);
  if (it == obj.end()) fail(file, ": ", path, key, ": missing, expected an object");
  if (!it->is_object()) fail(file, ": ", path, key, ": found ", type_name(*it), ", expected an object");
  return *it;
}

// A "type" that must be one of `supported` (or the component may be null when `nullable`).
void require_type(const json& root, const char* component, std::initializer_list<const char*> supported, bool nullable,
                  const std::string& file) {
  const auto it = root.find(component);
  if (it == root.end() || it->is_null()) {
    if (nullable) return;
    fail(file, ": ", component, ": missing, expected an object with a \"type\"");
  }
  if (!it->is_object()) fail(file, ": ", component, ": found ", type_name(*it), ", expected an object");
  const std::string type = string_field(*it, "type", "", file, std::string(component) + ".");
  for (const char* s : supported) {
    if (type == s) return;
  }
  std::string list;
  for (const char* s : supported) list += (list.empty() ? "'" : ", '") + std::string(s) + "'";
  fail(file, ": ", component, ".type is '", text_preview(type), "': not supported, expected ", list);
}

// tokenizer_config.json token names may be strings or {"content": ...} objects.
std::string token_name(const json& config, const char* key, const std::string& fallback, const std::string& file) {
  const auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object()) return string_field(*it, "content", fallback, file, std::string(key) + ".");
  fail(file, ": ", key, ": found ", type_name(*it), ", expected a string or an object with \"content\"");
}

std::vector<AddedToken> read_added_tokens(const json& root, const std::string& file) {
  std::vector<AddedToken> added;
  const auto it = root.find("added_tokens");
  if (it == root.end() || it->is_null()) return added;
  if (!it->is_array()) fail(file, ": added_tokens: found ", type_name(*it), ", expected an array");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& t = (*it)[i];
    const std::string where = "added_tokens[" + std::to_string(i) + "]";
    const std::string path = where + ".";
    if (!t.is_object()) fail(file, ": ", where, ": found ", type_name(t), ", expected an object");
    for (const char* flag : {"normalized", "lstrip", "rstrip", "single_word"}) {
      if (bool_field(t, flag, false, file, path)) {
        fail(file, ": ", path, flag, " is true: not supported, expected false (BERT special tokens)");
      }
    }
    const std::string content = string_field(t, "content", "", file, path);
    const auto id = field<int64_t>(
        t, "id", -1, [](const json& j) { return j.is_number_integer(); }, "an integer", file, path);
    if (content.empty() || id < 0 || id > INT32_MAX) {
      fail(file, ": ", where, ": content '", text_preview(content), "' id ", id,
           ", expected a non-empty content and an id >= 0");
    }
    added.push_back({decode_utf8(content), static_cast<int32_t>(id)});
  }
  return added;
}

std::shared_ptr<const Vocab> read_json_vocab(const json& model, const std::string& file) {
  const json& vocab = object_field(model, "vocab", file, "model.");
  std::vector<std::pair<std::string, int32_t>> entries;
  entries.reserve(vocab.size());
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > INT32_MAX) {
      fail(file, ": model.vocab[\"", text_preview(it.key()), "\"]: found ", json_preview(*it),
           ", expected a non-negative integer id");
    }
    entries.emplace_back(it.key(), it->get<int32_t>());
  }
  return Vocab::from_entries(std::move(entries), file + ": model.vocab");
}

// True for a regular file, false when nothing is there; anything else (a directory, a FIFO, a
// device) under a tokenizer file's name is an error saying what it is.
bool optional_file(const std::string& path) {
  const std::string kind = non_regular_kind(path);
  if (kind == "missing") return false;
  if (!kind.empty()) require_regular_file(path);
  return true;
}

std::vector<std::string> existing_files(const fs::path& dir) {
  std::vector<std::string> files;
  for (const char* name : {"tokenizer.json", "vocab.txt", "tokenizer_config.json", "special_tokens_map.json"}) {
    if (optional_file((dir / name).string())) files.push_back((dir / name).string());
  }
  return files;
}

Tokenizer load_tokenizer_json(const fs::path& dir) {
  const std::string file = (dir / "tokenizer.json").string();
  const std::string config = (dir / "tokenizer_config.json").string();
  const std::string tokenizer_text = read_file(file, kMaxTokenizerBytes);
  std::string config_text;
  if (optional_file(config)) config_text = read_file(config, kMaxSmallJsonBytes);
  return tokenizer_from_json(tokenizer_text, file, optional_file(config) ? &config_text : nullptr, config,
                             existing_files(dir));
}

Tokenizer load_vocab_txt(const fs::path& dir) {
  const std::string file = (dir / "vocab.txt").string();
  NormalizerOptions normalizer;  // BertTokenizerFast defaults: uncased
  SpecialTokenNames names;
  const std::string config = (dir / "tokenizer_config.json").string();
  if (optional_file(config)) apply_tokenizer_config(read_file(config, kMaxSmallJsonBytes), config, normalizer, names);
  auto vocab = Vocab::from_vocab_txt(file);
  WordPieceOptions wordpiece;
  wordpiece.unk_token = names.unk;
  // The special tokens transformers registers as added tokens (matched verbatim in raw text).
  std::vector<AddedToken> added;
  for (const std::string* name : {&names.pad, &names.unk, &names.cls, &names.sep, &names.mask}) {
    const int32_t id = vocab->find(*name);
    if (id >= 0) added.push_back({decode_utf8(*name), id});
  }
  return Tokenizer(std::move(vocab), normalizer, wordpiece, names, std::move(added), existing_files(dir), file);
}

}  // namespace

void apply_tokenizer_config(std::string_view text, const std::string& path, NormalizerOptions& normalizer,
                            SpecialTokenNames& names) {
  const json config = parse_json(text, path);
  if (!config.is_object()) fail(path, ": found ", type_name(config), ", expected a JSON object");
  normalizer.lowercase = bool_field(config, "do_lower_case", normalizer.lowercase, path, "");
  if (config.contains("strip_accents"))
    normalizer.strip_accents = optional_bool_field(config, "strip_accents", path, "");
  normalizer.handle_chinese_chars =
      bool_field(config, "tokenize_chinese_chars", normalizer.handle_chinese_chars, path, "");
  names.cls = token_name(config, "cls_token", names.cls, path);
  names.sep = token_name(config, "sep_token", names.sep, path);
  names.pad = token_name(config, "pad_token", names.pad, path);
  names.unk = token_name(config, "unk_token", names.unk, path);
  names.mask = token_name(config, "mask_token", names.mask, path);
}

Tokenizer tokenizer_from_json(std::string_view text, const std::string& file, const std::string* config_text,
                              const std::string& config_file, std::vector<std::string> source_files) {
  const json root = parse_json(text, file);
  if (!root.is_object()) fail(file, ": found ", type_name(root), ", expected a JSON object");

  require_type(root, "model", {"WordPiece"}, false, file);
  require_type(root, "normalizer", {"BertNormalizer"}, true, file);
  require_type(root, "pre_tokenizer", {"BertPreTokenizer"}, false, file);
  require_type(root, "post_processor", {"BertProcessing", "TemplateProcessing"}, true, file);

  NormalizerOptions normalizer{false, false, false, false};  // a null normalizer changes nothing
  if (root.contains("normalizer") && !root["normalizer"].is_null()) {
    const json& n = root["normalizer"];
    normalizer.clean_text = bool_field(n, "clean_text", true, file, "normalizer.");
    normalizer.handle_chinese_chars = bool_field(n, "handle_chinese_chars", true, file, "normalizer.");
    normalizer.strip_accents = optional_bool_field(n, "strip_accents", file, "normalizer.");
    normalizer.lowercase = bool_field(n, "lowercase", true, file, "normalizer.");
  }
  const json& model = root["model"];
  WordPieceOptions wordpiece;
  wordpiece.unk_token = string_field(model, "unk_token", wordpiece.unk_token, file, "model.");
  wordpiece.continuing_subword_prefix =
      string_field(model, "continuing_subword_prefix", wordpiece.continuing_subword_prefix, file, "model.");
  wordpiece.max_input_chars_per_word = field<int64_t>(
      model, "max_input_chars_per_word", wordpiece.max_input_chars_per_word,
      [](const json& j) { return j.is_number_integer() && j.get<int64_t>() >= 0; }, "a non-negative integer", file,
      "model.");
  SpecialTokenNames names;
  names.unk = wordpiece.unk_token;
  if (config_text) apply_tokenizer_config(*config_text, config_file, normalizer, names);
  return Tokenizer(read_json_vocab(model, file), normalizer, wordpiece, names, read_added_tokens(root, file),
                   std::move(source_files), file);
}

Tokenizer Tokenizer::load(const std::string& model_dir) {
  const fs::path dir(model_dir);
  if (optional_file((dir / "tokenizer.json").string())) return load_tokenizer_json(dir);
  if (optional_file((dir / "vocab.txt").string())) return load_vocab_txt(dir);
  fail(model_dir, ": no tokenizer.json or vocab.txt, expected a Hugging Face tokenizer directory");
}

}  // namespace cpuft
