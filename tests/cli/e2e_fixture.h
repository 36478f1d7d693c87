// Shared pieces of the end-to-end tests: a scratch directory per test, a tiny random BERT written
// by `cpuft init-model`, a synthetic SQuAD v1.1 task a 2-layer model learns in ~100 steps, the
// common training flags, and checks on cpuft's one-line errors.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cpuft_process.h"
#include "common/temp_dir.h"
#include "cpuft/io/safetensors.h"

namespace cpuft_e2e {

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot open");
  return nlohmann::json::parse(f);
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline Args concat(Args a, const Args& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The synthetic task: a context of 15-35 common words holds one "colour marker" followed by a noun;
// the question names the marker ("what word comes after blue ?") and the answer is that noun. The
// nouns occur nowhere else, so a randomly initialised 2-layer model learns the task in ~100 steps
// while an untrained one scores F1 near 5 (random short spans of the context).
inline nlohmann::json marker_squad(int n, uint32_t seed) {
  static const std::vector<std::string> filler = {
      "the",   "of",    "and",   "in",     "to",    "was",   "for",   "on",    "with",  "as",    "by",
      "at",    "from",  "that",  "this",   "are",   "or",    "not",   "but",   "have",  "they",  "one",
      "two",   "three", "all",   "more",   "some",  "time",  "year",  "people", "way",  "day",   "man",
      "thing", "life",  "world", "school", "state", "group", "hand",  "part",  "place", "case",  "week",
      "work",  "number", "night", "point", "home",  "room",  "area",  "story", "month", "study", "book",
      "job",   "word",  "side",  "kind",   "head",  "house", "friend", "power", "hour", "game",  "line"};
  static const std::vector<std::string> nouns = {
      "apple",  "river", "table",  "garden", "window", "bottle", "candle", "pencil", "rabbit",
      "tiger",  "lemon", "orange", "piano",  "guitar", "rocket", "castle", "island", "forest",
      "desert", "planet", "bridge", "tower", "ocean",  "valley", "engine"};
  static const std::vector<std::string> markers = {"red", "blue", "green", "black", "white", "gold"};
  std::mt19937 rng(seed);  // raw outputs only: the same data on every standard library
  auto pick = [&](const std::vector<std::string>& v) -> const std::string& { return v[rng() % v.size()]; };
  nlohmann::json data = nlohmann::json::array();
  for (int i = 0; i < n; ++i) {
    std::vector<std::string> words;
    const int len = 15 + static_cast<int>(rng() % 21);
    for (int w = 0; w < len; ++w) words.push_back(pick(filler));
    const std::string& marker = pick(markers);
    const std::string& noun = pick(nouns);
    const size_t at = rng() % (words.size() + 1);
    words.insert(words.begin() + static_cast<long>(at), {marker, noun});
    std::string context;
    size_t answer_start = 0;
    for (size_t w = 0; w < words.size(); ++w) {
      if (w) context += ' ';
      if (w == at + 1) answer_start = context.size();
      context += words[w];
    }
    const std::string id = "s" + std::to_string(seed) + "-" + std::to_string(i);
    nlohmann::json qa = {{"id", id},
                         {"question", "what word comes after " + marker + " ?"},
                         {"answers", {{{"text", noun}, {"answer_start", answer_start}}}}};
    data.push_back({{"title", "t" + std::to_string(i)}, {"paragraphs", {{{"context", context}, {"qas", {qa}}}}}});
  }
  return {{"version", "1.1"}, {"data", data}};
}

// A test with its own scratch directory (removed afterwards unless the test failed) and helpers to
// fill it.
class E2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = std::make_unique<cpuft_test::TempDir>("cpuft-e2e");
    dir_ = scratch_->path();
  }
  void TearDown() override {
    if (HasFailure()) {  // keep the evidence: the runs' stdout/stderr and output directories
      std::printf("scratch directory kept: %s\n", dir_.c_str());
      scratch_->keep();
    }
    scratch_.reset();
  }

  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  ProcessResult cpuft(const Args& args, double limit_s = 120, const std::string& stdin_text = "") {
    RunOptions o;
    o.stdin_text = stdin_text;
    return run_cpuft(args, dir_, limit_s, o);
  }
  ProcessResult cpuft_with(const Args& args, const RunOptions& options, double limit_s = 120) {
    return run_cpuft(args, dir_, limit_s, options);
  }

  // Writes a random tiny BERT (hidden 64, 2 layers, uncased 30,522-token vocabulary) to `name`.
  std::string tiny_model(const std::string& name = "model", const std::string& seed = "42") {
    const std::string out = path(name);
    ProcessResult r = cpuft({"init-model", "--config", CPUFT_FIXTURES "/cli/tiny_bert_config.json", "--tokenizer",
                             CPUFT_FIXTURES "/text", "--output_dir", out, "--seed", seed});
    EXPECT_EQ(r.status, 0) << r.err;
    return out;
  }

  std::string squad_file(const std::string& name, int n, uint32_t seed) {
    const std::string p = path(name);
    write_text(p, marker_squad(n, seed).dump());
    return p;
  }

  std::unique_ptr<cpuft_test::TempDir> scratch_;
  std::string dir_;
};

// Flags every run of the tiny model shares: short windows, and one thread, which is fastest for a
// model this small on a busy machine and makes runs repeatable bit for bit.
inline Args tiny_flags() { return {"--max_seq_length", "64", "--doc_stride", "16", "--threads", "1"}; }

// cpuft's error contract: exit status 1 and exactly one "cpuft: error: ..." line on stderr.
inline std::string error_line(const ProcessResult& r) {
  std::string found;
  int count = 0;
  size_t pos = 0;
  while ((pos = r.err.find("cpuft: error: ", pos)) != std::string::npos) {
    const size_t end = r.err.find('\n', pos);
    found = r.err.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    ++count;
    pos = end == std::string::npos ? r.err.size() : end;
  }
  return count == 1 ? found : "(" + std::to_string(count) + " error lines)";
}

#define EXPECT_ONE_LINE_ERROR(result, ...)                                                         \
  do {                                                                                             \
    const ::cpuft_e2e::ProcessResult& r_ = (result);                                               \
    EXPECT_EQ(r_.status, 1) << r_.err;                                                             \
    const std::string line_ = ::cpuft_e2e::error_line(r_);                                         \
    for (const std::string& want_ : std::vector<std::string>{__VA_ARGS__})                         \
      EXPECT_NE(line_.find(want_), std::string::npos) << "error line: " << line_ << "\nwanted: " << want_; \
  } while (0)

// Rewrites the safetensors file `file` (F32 tensors) with edit(name, values) applied to each tensor.
template <typename Edit>
void edit_weights(const std::string& file, Edit edit) {
  std::vector<std::vector<float>> values;
  std::vector<cpuft::StTensorOut> out;
  {
    cpuft::SafetensorsReader st(file);
    for (const cpuft::StTensorInfo& t : st.tensors()) {
      values.push_back(st.read_f32(t.name));
      edit(t.name, values.back());
    }
    for (size_t i = 0; i < st.tensors().size(); ++i)
      out.push_back({st.tensors()[i].name, st.tensors()[i].shape, values[i].data(), nullptr, nullptr});
  }
  cpuft::write_safetensors(file, out);
}

// Files in `dir` whose names show an interrupted write (atomic-write temporaries, half deletions).
inline std::vector<std::string> leftover_temporaries(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (name.find(".tmp") != std::string::npos || name.find(".deleting") != std::string::npos)
      out.push_back(it->path().string());
  }
  return out;
}

}  // namespace cpuft_e2e
