#include "cpuft/eval/squad_metrics.h"

#include <utf8proc.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "cpuft/text/utf8.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {
namespace {

utf8proc_category_t category(char32_t c) { return utf8proc_category(static_cast<utf8proc_int32_t>(c)); }

// Python str.isspace(): bidirectional class WS, B or S, or category Zs.
bool is_py_space(char32_t c) {
  if ((c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0) return true;
  if (c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029) return true;
  return c == 0x202F || c == 0x205F || c == 0x3000;
}

// Python re's \w for str patterns: alphanumeric (letters and numbers) or '_'.
bool is_word(char32_t c) {
  if (c == U'_') return true;
  switch (category(c)) {
    case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO: case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL: case UTF8PROC_CATEGORY_NO:
      return true;
    default:
      return false;
  }
}

bool is_cased(char32_t c) {
  const auto cat = category(c);
  if (cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LL || cat == UTF8PROC_CATEGORY_LT) return true;
  const auto cp = static_cast<utf8proc_int32_t>(c);
  return utf8proc_tolower(cp) != cp || utf8proc_toupper(cp) != cp;
}

// Unicode Case_Ignorable: marks, format characters, modifiers, and the word-internal punctuation.
bool is_case_ignorable(char32_t c) {
  switch (category(c)) {
    case UTF8PROC_CATEGORY_MN: case UTF8PROC_CATEGORY_ME: case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_SK:
      return true;
    default:
      break;
  }
  static const char32_t kMid[] = {0x27, 0x2E, 0x3A, 0xB7, 0x387, 0x55F, 0x5F4, 0x2018, 0x2019,
                                  0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A};
  return std::find(std::begin(kMid), std::end(kMid), c) != std::end(kMid);
}

// Python's final-sigma rule: capital sigma after a cased letter and not before one becomes U+03C2.
char32_t lower_sigma(const std::u32string& s, size_t i) {
  size_t j = i;
  while (j > 0 && is_case_ignorable(s[j - 1])) --j;
  if (j == 0 || !is_cased(s[j - 1])) return 0x3C3;
  size_t k = i + 1;
  while (k < s.size() && is_case_ignorable(s[k])) ++k;
  return (k == s.size() || !is_cased(s[k])) ? 0x3C2 : 0x3C3;
}

std::u32string py_lower(const std::u32string& s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char32_t c = s[i];
    if (c == 0x130) {  // the one unconditional multi-character lowercase mapping
      out.push_back(U'i');
      out.push_back(0x307);
    } else if (c == 0x3A3) {
      out.push_back(lower_sigma(s, i));
    } else {
      out.push_back(static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
    }
  }
  return out;
}

bool is_ascii_punct(char32_t c) {
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
}

std::vector<std::string> split_tokens(const std::string& normalized) {
  // normalize_answer leaves single ASCII spaces between tokens.
  std::vector<std::string> out;
  size_t i = 0;
  while (i < normalized.size()) {
    size_t j = normalized.find(' ', i);
    if (j == std::string::npos) j = normalized.size();
    if (j > i) out.push_back(normalized.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

// Size of the multiset intersection of two token lists (Counter(a) & Counter(b)).
int64_t common_count(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::unordered_map<std::string, int64_t> count;
  for (const auto& t : a) ++count[t];
  int64_t same = 0;
  for (const auto& t : b) {
    auto it = count.find(t);
    if (it != count.end() && it->second > 0) {
      --it->second;
      ++same;
    }
  }
  return same;
}

double f1_of(int64_t same, size_t pred_len, size_t gold_len) {
  const double precision = 1.0 * static_cast<double>(same) / static_cast<double>(pred_len);
  const double recall = 1.0 * static_cast<double>(same) / static_cast<double>(gold_len);
  return (2 * precision * recall) / (precision + recall);
}

}  // namespace

std::string normalize_answer(std::string_view s) {
  const std::u32string lowered = py_lower(decode_utf8(s));
  std::u32string text;
  text.reserve(lowered.size());
  for (char32_t c : lowered) {
    if (!is_ascii_punct(c)) text.push_back(c);
  }
  // \b(a|an|the)\b: a maximal run of word characters that is exactly an article becomes " ".
  std::u32string no_articles;
  no_articles.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (!is_word(text[i])) {
      no_articles.push_back(text[i++]);
      continue;
    }
    size_t j = i;
    while (j < text.size() && is_word(text[j])) ++j;
    const std::u32string run = text.substr(i, j - i);
    if (run == U"a" || run == U"an" || run == U"the") {
      no_articles.push_back(U' ');
    } else {
      no_articles += run;
    }
    i = j;
  }
  std::u32string joined;
  joined.reserve(no_articles.size());
  bool pending_space = false;
  for (char32_t c : no_articles) {
    if (is_py_space(c)) {
      pending_space = !joined.empty();
      continue;
    }
    if (pending_space) joined.push_back(U' ');
    pending_space = false;
    joined.push_back(c);
  }
  std::string out;
  out.reserve(joined.size());
  for (char32_t c : joined) append_utf8(c, out);
  return out;
}

double exact_match_score(std::string_view prediction, std::string_view gold) {
  return normalize_answer(prediction) == normalize_answer(gold) ? 1.0 : 0.0;
}

double f1_score(std::string_view prediction, std::string_view gold) {
  const auto pred = split_tokens(normalize_answer(prediction));
  const auto truth = split_tokens(normalize_answer(gold));
  const int64_t same = common_count(pred, truth);
  if (same == 0) return 0.0;
  return f1_of(same, pred.size(), truth.size());
}

double compute_exact_v2(std::string_view gold, std::string_view prediction) {
  return normalize_answer(gold) == normalize_answer(prediction) ? 1.0 : 0.0;
}

double compute_f1_v2(std::string_view gold, std::string_view prediction) {
  const auto gold_toks = gold.empty() ? std::vector<std::string>{} : split_tokens(normalize_answer(gold));
  const auto pred_toks = prediction.empty() ? std::vector<std::string>{} : split_tokens(normalize_answer(prediction));
  const int64_t same = common_count(gold_toks, pred_toks);
  if (gold_toks.empty() || pred_toks.empty()) return gold_toks == pred_toks ? 1.0 : 0.0;
  if (same == 0) return 0.0;
  return f1_of(same, pred_toks.size(), gold_toks.size());
}

IdPredictions id_predictions(const std::vector<ExamplePrediction>& predictions) {
  IdPredictions out;
  out.reserve(predictions.size());
  for (const auto& p : predictions) out.emplace_back(p.id, p.text);
  return out;
}

namespace {

// Python dict semantics: the last prediction for an id wins.
std::unordered_map<std::string, const std::string*> by_id(const IdPredictions& predictions) {
  std::unordered_map<std::string, const std::string*> map;
  for (const auto& [id, text] : predictions) map[id] = &text;
  return map;
}

}  // namespace

SquadV1Scores squad_v1_score(const std::vector<Example>& references, const IdPredictions& predictions) {
  const auto pred = by_id(predictions);
  SquadV1Scores s;
  double exact = 0.0, f1 = 0.0;
  for (const Example& ex : references) {
    ++s.total;
    auto it = pred.find(ex.id);
    if (it == pred.end()) {
      ++s.missing;
      continue;
    }
    if (ex.answers.empty())
      fail("squad v1.1 metric: question \"", text_preview(ex.id), "\" has no answer, expected at least one");
    double best_exact = 0.0, best_f1 = 0.0;
    for (size_t k = 0; k < ex.answers.size(); ++k) {
      const double e = exact_match_score(*it->second, ex.answers[k].text);
      const double f = f1_score(*it->second, ex.answers[k].text);
      best_exact = k == 0 ? e : std::max(best_exact, e);
      best_f1 = k == 0 ? f : std::max(best_f1, f);
    }
    exact += best_exact;
    f1 += best_f1;
  }
  if (s.total == 0) fail("squad v1.1 metric: no reference questions");
  s.exact_match = 100.0 * exact / static_cast<double>(s.total);
  s.f1 = 100.0 * f1 / static_cast<double>(s.total);
  return s;
}

SquadV2Scores squad_v2_score(const std::vector<Example>& references, const IdPredictions& predictions) {
  const auto pred = by_id(predictions);
  if (references.empty()) fail("squad v2.0 metric: no reference questions");
  std::unordered_map<std::string, size_t> index_of;  // reference id -> position
  std::vector<double> exact(references.size()), f1(references.size());
  std::vector<bool> has_ans(references.size());
  for (size_t q = 0; q < references.size(); ++q) {
    const Example& ex = references[q];
    index_of[ex.id] = q;
    auto it = pred.find(ex.id);
    if (it == pred.end())
      fail("squad v2.0 metric: no prediction for question \"", text_preview(ex.id), "\", expected one per question");
    has_ans[q] = !ex.answers.empty();
    std::vector<std::string> golds;
    for (const auto& a : ex.answers) {
      if (!normalize_answer(a.text).empty()) golds.push_back(a.text);
    }
    if (golds.empty()) golds.push_back("");
    for (size_t k = 0; k < golds.size(); ++k) {
      const double e = compute_exact_v2(golds[k], *it->second);
      const double f = compute_f1_v2(golds[k], *it->second);
      exact[q] = k == 0 ? e : std::max(exact[q], e);
      f1[q] = k == 0 ? f : std::max(f1[q], f);
    }
  }
  SquadV2Scores s;
  const double n = static_cast<double>(references.size());
  double sum_exact = 0.0, sum_f1 = 0.0, has_exact = 0.0, has_f1 = 0.0, no_exact = 0.0, no_f1 = 0.0;
  for (size_t q = 0; q < references.size(); ++q) {
    sum_exact += exact[q];
    sum_f1 += f1[q];
    (has_ans[q] ? has_exact : no_exact) += exact[q];
    (has_ans[q] ? has_f1 : no_f1) += f1[q];
    ++(has_ans[q] ? s.has_ans_total : s.no_ans_total);
  }
  s.total = static_cast<int64_t>(references.size());
  s.exact = 100.0 * sum_exact / n;
  s.f1 = 100.0 * sum_f1 / n;
  s.has_has_ans = s.has_ans_total > 0;
  s.has_no_ans = s.no_ans_total > 0;
  if (s.has_has_ans) {
    s.has_ans_exact = 100.0 * has_exact / static_cast<double>(s.has_ans_total);
    s.has_ans_f1 = 100.0 * has_f1 / static_cast<double>(s.has_ans_total);
  }
  if (s.has_no_ans) {
    s.no_ans_exact = 100.0 * no_exact / static_cast<double>(s.no_ans_total);
    s.no_ans_f1 = 100.0 * no_f1 / static_cast<double>(s.no_ans_total);
  }
  // find_best_thresh with every no-answer probability 0.0: walk the predictions in their order
  // (Python's sort by probability is stable), keeping the best running score.
  auto best = [&](const std::vector<double>& scores, double& best_value) {
    double cur = static_cast<double>(s.no_ans_total), best_score = cur;
    std::unordered_set<std::string> seen;  // na_probs is a dict: one entry per id, first position
    for (const auto& [id, text] : predictions) {
      if (!seen.insert(id).second) continue;
      auto q = index_of.find(id);
      if (q == index_of.end()) continue;
      const std::string& final_text = *pred.at(id);
      cur += has_ans[q->second] ? scores[q->second] : (final_text.empty() ? 0.0 : -1.0);
      if (cur > best_score) best_score = cur;
    }
    best_value = 100.0 * best_score / n;
  };
  best(exact, s.best_exact);
  best(f1, s.best_f1);
  return s;
}

}  // namespace cpuft
