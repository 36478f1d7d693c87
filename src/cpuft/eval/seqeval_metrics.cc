#include "cpuft/eval/seqeval_metrics.h"

#include <map>
#include <set>
#include <utility>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {
namespace {

// A tag split as get_entities splits it (suffix=False): its first character and the type after the
// first '-' of the rest ('_' when that is empty).
struct Chunk {
  std::string tag;
  std::string type;
};

size_t first_char_bytes(const std::string& s) {
  const auto c = static_cast<unsigned char>(s[0]);
  const size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  return std::min(n, s.size());
}

Chunk split_tag(const std::string& label) {
  if (label.empty()) fail("seqeval: an empty tag, expected tags such as B-PER, I-PER, O");
  const size_t head = first_char_bytes(label);
  Chunk c;
  c.tag = label.substr(0, head);
  const std::string rest = label.substr(head);
  const size_t dash = rest.find('-');
  c.type = dash == std::string::npos ? rest : rest.substr(dash + 1);
  if (c.type.empty()) c.type = "_";
  return c;
}

bool end_of_chunk(const std::string& prev_tag, const std::string& tag, const std::string& prev_type,
                  const std::string& type) {
  if (prev_tag == "E" || prev_tag == "S") return true;
  if ((prev_tag == "B" || prev_tag == "I") && (tag == "B" || tag == "S" || tag == "O")) return true;
  return prev_tag != "O" && prev_tag != "." && prev_type != type;
}

bool start_of_chunk(const std::string& prev_tag, const std::string& tag, const std::string& prev_type,
                    const std::string& type) {
  if (tag == "B" || tag == "S") return true;
  if ((prev_tag == "E" || prev_tag == "S" || prev_tag == "O") && (tag == "E" || tag == "I")) return true;
  return tag != "O" && tag != "." && prev_type != type;
}

// seqeval's _prf_divide with zero_division "warn": 0 where the denominator is 0.
double divide(int64_t num, int64_t den) { return den == 0 ? 0.0 : static_cast<double>(num) / static_cast<double>(den); }

// (1 + beta^2) p r / (beta^2 p + r) with beta 1, the denominator replaced by 1 when 0, as numpy does it.
double f_score(double p, double r) {
  double denom = p + r;
  if (denom == 0.0) denom = 1;
  return 2.0 * p * r / denom;
}

}  // namespace

std::vector<Entity> get_entities(const std::vector<std::vector<std::string>>& sentences) {
  std::vector<Entity> out;
  std::string prev_tag = "O", prev_type;
  int64_t begin = 0, i = 0;
  auto step = [&](const std::string& label) {
    const Chunk c = split_tag(label);
    if (end_of_chunk(prev_tag, c.tag, prev_type, c.type)) out.push_back({prev_type, begin, i - 1});
    if (start_of_chunk(prev_tag, c.tag, prev_type, c.type)) begin = i;
    prev_tag = c.tag;
    prev_type = c.type;
    ++i;
  };
  // The nested form: each sentence followed by an 'O', then the final 'O' get_entities appends.
  for (const std::vector<std::string>& s : sentences) {
    for (const std::string& label : s) step(label);
    step("O");
  }
  step("O");
  return out;
}

SeqevalScores seqeval_scores(const std::vector<std::vector<std::string>>& predictions,
                             const std::vector<std::vector<std::string>>& references) {
  if (predictions.size() != references.size())
    fail("seqeval: ", predictions.size(), " predicted sentences for ", references.size(), " references, expected one each");
  int64_t tokens = 0, correct = 0;
  for (size_t s = 0; s < predictions.size(); ++s) {
    if (predictions[s].size() != references[s].size())
      fail("seqeval: sentence ", s, " has ", predictions[s].size(), " predicted tags for ", references[s].size(),
           " references, expected one each");
    for (size_t t = 0; t < predictions[s].size(); ++t) correct += predictions[s][t] == references[s][t];
    tokens += static_cast<int64_t>(predictions[s].size());
  }
  if (tokens == 0) fail("seqeval: no tokens to score, expected at least one");
  std::map<std::string, std::set<std::pair<int64_t, int64_t>>> truth, guess;
  for (const Entity& e : get_entities(references)) truth[e.type].insert({e.first, e.last});
  for (const Entity& e : get_entities(predictions)) guess[e.type].insert({e.first, e.last});
  std::set<std::string> types;
  for (const auto& [t, spans] : truth) types.insert(t);
  for (const auto& [t, spans] : guess) types.insert(t);
  SeqevalScores out;
  int64_t tp_sum = 0, pred_sum = 0, true_sum = 0;
  for (const std::string& type : types) {  // std::set orders by bytes: Python's sorted() for UTF-8 text
    const auto& t = truth[type];
    const auto& g = guess[type];
    int64_t tp = 0;
    for (const auto& span : g) tp += t.count(span);
    EntityScores e;
    e.type = type;
    e.precision = divide(tp, static_cast<int64_t>(g.size()));
    e.recall = divide(tp, static_cast<int64_t>(t.size()));
    e.f1 = f_score(e.precision, e.recall);
    e.number = static_cast<int64_t>(t.size());
    out.types.push_back(e);
    tp_sum += tp;
    pred_sum += static_cast<int64_t>(g.size());
    true_sum += static_cast<int64_t>(t.size());
  }
  out.overall_precision = divide(tp_sum, pred_sum);
  out.overall_recall = divide(tp_sum, true_sum);
  out.overall_f1 = f_score(out.overall_precision, out.overall_recall);
  out.overall_accuracy = static_cast<double>(correct) / static_cast<double>(tokens);
  return out;
}

std::vector<NamedMetric> run_ner_metrics(const SeqevalScores& s, bool return_entity_level_metrics) {
  if (!return_entity_level_metrics)
    return {{"precision", s.overall_precision}, {"recall", s.overall_recall}, {"f1", s.overall_f1},
            {"accuracy", s.overall_accuracy}};
  std::vector<NamedMetric> out;
  for (const EntityScores& e : s.types) {
    out.push_back({e.type + "_precision", e.precision});
    out.push_back({e.type + "_recall", e.recall});
    out.push_back({e.type + "_f1", e.f1});
    out.push_back({e.type + "_number", static_cast<double>(e.number)});
  }
  out.push_back({"overall_precision", s.overall_precision});
  out.push_back({"overall_recall", s.overall_recall});
  out.push_back({"overall_f1", s.overall_f1});
  out.push_back({"overall_accuracy", s.overall_accuracy});
  return out;
}

}  // namespace cpuft
