#include "cpuft/eval/postprocess.h"

#include <algorithm>
#include <cmath>

#include "cpuft/text/utf8.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {
namespace {

struct Candidate {
  int64_t begin = 0, end = 0;  // code-point offsets into the context
  float score = 0.0f, start_logit = 0.0f, end_logit = 0.0f;
};

// numpy's float32 add.reduce over a contiguous array: pairwise summation, which below 8 elements
// is a plain loop and up to 128 uses 8 interleaved accumulators (our arrays are never longer).
float numpy_sum_f32(const std::vector<float>& a) {
  const size_t n = a.size();
  float sum = 0.0f;
  if (n < 8) {
    for (size_t i = 0; i < n; ++i) sum += a[i];
    return sum;
  }
  float r[8];
  for (int j = 0; j < 8; ++j) r[j] = a[j];
  size_t i = 8;
  for (; i < n - (n % 8); i += 8) {
    for (int j = 0; j < 8; ++j) r[j] += a[i + j];
  }
  sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
  for (; i < n; ++i) sum += a[i];
  return sum;
}

// utils_qa: probs = exp(scores - max) / sum, in float32 unless the float64 dummy is in the list.
void set_probabilities(std::vector<NbestEntry>& nbest) {
  const bool has_dummy = std::any_of(nbest.begin(), nbest.end(), [](const NbestEntry& e) { return e.is_dummy; });
  if (has_dummy) {
    double max = -INFINITY, sum = 0.0;
    for (const auto& e : nbest) max = std::max(max, static_cast<double>(e.score));
    for (const auto& e : nbest) sum += std::exp(static_cast<double>(e.score) - max);
    for (auto& e : nbest) e.probability = std::exp(static_cast<double>(e.score) - max) / sum;
    return;
  }
  float max = -INFINITY;
  for (const auto& e : nbest) max = std::max(max, e.score);
  std::vector<float> ex(nbest.size());
  for (size_t i = 0; i < nbest.size(); ++i) ex[i] = numpy_expf(nbest[i].score - max);
  const float sum = numpy_sum_f32(ex);
  for (size_t i = 0; i < nbest.size(); ++i) nbest[i].probability = ex[i] / sum;
}

bool is_context(const Span& s) { return s.begin >= 0 && s.end >= 0; }

}  // namespace

// Cody-Waite reduction by k = rint(x log2 e), a (5,2) rational approximation evaluated with FMAs,
// then scaling by 2^k (constants of numpy's npy_simd_data.h).
float numpy_expf(float x) {
  if (std::isnan(x)) return x;
  if (x >= 88.72283935546875f) return INFINITY;
  if (x <= -103.97208404541015625f) return 0.0f;
  const float k = std::nearbyint(x * 1.442695040888963407359924681001892137f);
  float y = std::fma(k, -6.93145752e-1f, x);
  y = std::fma(k, -1.42860677e-6f, y);
  float num = std::fma(5.082762527590693718096e-04f, y, 6.757896990527504603057e-03f);
  num = std::fma(num, y, 5.114512081637298353406e-02f);
  num = std::fma(num, y, 2.473615434895520810817e-01f);
  num = std::fma(num, y, 7.257664613233124478488e-01f);
  num = std::fma(num, y, 9.999999999980870924916e-01f);
  float den = std::fma(2.159509375685829852307e-02f, y, -2.742335390411667452936e-01f);
  den = std::fma(den, y, 1.0f);
  return std::ldexp(num / den, static_cast<int>(k));  // one rounding, also for subnormal results
}

std::vector<int> top_k_indices(const float* v, int n, int k) {
  std::vector<int> idx(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) idx[i] = i;
  k = std::clamp(k, 0, n);  // a negative k would make partial_sort's middle precede its start
  // Descending value, NaN first (numpy sorts NaN last ascending), equal values: larger index first.
  auto before = [v](int a, int b) {
    const bool na = std::isnan(v[a]), nb = std::isnan(v[b]);
    if (na != nb) return na;
    if (!na && v[a] != v[b]) return v[a] > v[b];
    return a > b;
  };
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), before);
  idx.resize(static_cast<size_t>(k));
  return idx;
}

std::vector<ExamplePrediction> postprocess_qa_predictions(const std::vector<Example>& examples,
                                                          const std::vector<Feature>& features,
                                                          const QaLogits& logits,
                                                          const PostprocessOptions& opt) {
  if (logits.num_features != static_cast<int64_t>(features.size())) {
    fail("postprocess: logits have ", logits.num_features, " rows, expected one per feature (",
         features.size(), ")");
  }
  if (logits.seq_len < 1 || !logits.start || !logits.end) {
    fail("postprocess: logits of length ", logits.seq_len, ", expected at least 1 position per feature");
  }
  std::vector<std::vector<int64_t>> features_of(examples.size());
  for (size_t f = 0; f < features.size(); ++f) {
    const int32_t e = features[f].example_index;
    if (e < 0 || static_cast<size_t>(e) >= examples.size()) {
      fail("postprocess: features[", f, "].example_index = ", e, ", expected 0 <= index < ", examples.size());
    }
    features_of[e].push_back(static_cast<int64_t>(f));
  }
  const int seq = static_cast<int>(logits.seq_len);
  std::vector<ExamplePrediction> out;
  out.reserve(examples.size());
  for (size_t e = 0; e < examples.size(); ++e) {
    const Example& ex = examples[e];
    if (opt.version_2_with_negative && features_of[e].empty()) {
      fail("postprocess: example ", e, " (id \"", text_preview(ex.id),
           "\") has no features; a v2 null score needs one");
    }
    Candidate min_null;
    bool have_null = false;
    std::vector<Candidate> prelim;
    for (int64_t f : features_of[e]) {
      const float* sl = logits.start + f * logits.seq_len;
      const float* el = logits.end + f * logits.seq_len;
      const std::vector<Span>& offsets = features[f].offsets;
      const float null_score = sl[0] + el[0];
      if (!have_null || min_null.score > null_score) {
        min_null = Candidate{0, 0, null_score, sl[0], el[0]};
        have_null = true;
      }
      const std::vector<int> starts = top_k_indices(sl, seq, opt.n_best_size);
      const std::vector<int> ends = top_k_indices(el, seq, opt.n_best_size);
      const int num_offsets = static_cast<int>(offsets.size());
      for (int s : starts) {
        for (int t : ends) {
          if (s >= num_offsets || t >= num_offsets || !is_context(offsets[s]) || !is_context(offsets[t])) continue;
          if (t < s || t - s + 1 > opt.max_answer_length) continue;
          prelim.push_back(Candidate{offsets[s].begin, offsets[t].end, sl[s] + el[t], sl[s], el[t]});
        }
      }
    }
    float null_score = 0.0f;
    if (opt.version_2_with_negative) {
      prelim.push_back(min_null);
      null_score = min_null.score;
    }
    std::stable_sort(prelim.begin(), prelim.end(),
                     [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
    if (prelim.size() > static_cast<size_t>(opt.n_best_size)) prelim.resize(static_cast<size_t>(opt.n_best_size));
    if (opt.version_2_with_negative &&
        std::none_of(prelim.begin(), prelim.end(), [](const Candidate& c) { return c.begin == 0 && c.end == 0; })) {
      prelim.push_back(min_null);
    }
    const std::vector<size_t> at = code_point_byte_offsets(ex.context);
    const int64_t len = static_cast<int64_t>(at.size()) - 1;
    ExamplePrediction pred;
    pred.id = ex.id;
    for (const Candidate& c : prelim) {
      // Python slicing: clamp both ends to the string and give "" when end <= begin.
      const int64_t b = std::clamp<int64_t>(c.begin, 0, len), t = std::clamp<int64_t>(c.end, 0, len);
      NbestEntry entry;
      entry.start_logit = c.start_logit;
      entry.end_logit = c.end_logit;
      entry.score = c.score;
      if (t > b) {
        entry.text = ex.context.substr(at[b], at[t] - at[b]);
        entry.start_char = b;
        entry.end_char = t;
      }
      pred.nbest.push_back(std::move(entry));
    }
    if (pred.nbest.empty() || (pred.nbest.size() == 1 && pred.nbest[0].text.empty())) {
      NbestEntry dummy;
      dummy.text = "empty";
      dummy.is_dummy = true;
      pred.nbest.insert(pred.nbest.begin(), dummy);
    }
    set_probabilities(pred.nbest);
    if (!opt.version_2_with_negative) {
      pred.text = pred.nbest[0].text;
    } else {
      auto best = std::find_if(pred.nbest.begin(), pred.nbest.end(), [](const NbestEntry& n) { return !n.text.empty(); });
      // utils_qa would raise IndexError without a non-empty candidate; the only one left is the null.
      const NbestEntry none;
      const NbestEntry& best_non_null = best != pred.nbest.end() ? *best : none;
      pred.null_score_diff = null_score - best_non_null.start_logit - best_non_null.end_logit;
      pred.text = static_cast<double>(pred.null_score_diff) > opt.null_score_diff_threshold ? "" : best_non_null.text;
    }
    out.push_back(std::move(pred));
  }
  return out;
}

}  // namespace cpuft
