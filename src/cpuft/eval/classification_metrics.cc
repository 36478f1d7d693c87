#include "cpuft/eval/classification_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "cpuft/util/error.h"

namespace cpuft {
namespace {

template <typename T>
void check_pairs(const std::vector<T>& predictions, const std::vector<T>& references, const char* metric) {
  if (predictions.size() != references.size())
    fail(metric, ": ", predictions.size(), " predictions for ", references.size(), " references, expected one each");
  if (predictions.empty()) fail(metric, ": no examples to score, expected at least one");
}

// Pearson's r of two double vectors: the centred vectors' normalised dot product, clipped to [-1, 1]
// (scipy.stats.pearsonr); NaN when either is constant.
double pearson_of(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxx = 0, syy = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double dx = x[i] - mx, dy = y[i] - my;
    sxx += dx * dx;
    syy += dy * dy;
    sxy += dx * dy;
  }
  if (sxx == 0 || syy == 0) return std::numeric_limits<double>::quiet_NaN();
  return std::clamp(sxy / (std::sqrt(sxx) * std::sqrt(syy)), -1.0, 1.0);
}

std::vector<double> widened(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

}  // namespace

std::vector<int32_t> argmax_rows(const float* logits, int64_t rows, int64_t num_labels) {
  std::vector<int32_t> out(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = logits + r * num_labels;
    int64_t best = 0;
    for (int64_t c = 0; c < num_labels; ++c) {
      if (std::isnan(row[c])) {
        best = c;
        break;
      }
      if (row[c] > row[best]) best = c;
    }
    out[static_cast<size_t>(r)] = static_cast<int32_t>(best);
  }
  return out;
}

double accuracy(const std::vector<int32_t>& predictions, const std::vector<int32_t>& references) {
  check_pairs(predictions, references, "accuracy");
  int64_t correct = 0;
  for (size_t i = 0; i < predictions.size(); ++i) correct += predictions[i] == references[i];
  return static_cast<double>(correct) / static_cast<double>(predictions.size());
}

double binary_f1(const std::vector<int32_t>& predictions, const std::vector<int32_t>& references) {
  check_pairs(predictions, references, "f1");
  int64_t tp = 0, fp = 0, fn = 0;
  for (size_t i = 0; i < predictions.size(); ++i) {
    const bool p = predictions[i] == 1, r = references[i] == 1;
    tp += p && r;
    fp += p && !r;
    fn += !p && r;
  }
  // sklearn's F-beta with beta 1: 2 tp / (2 tp + fn + fp), 0 when undefined (zero_division "warn").
  const int64_t denominator = 2 * tp + fn + fp;
  return denominator == 0 ? 0.0 : static_cast<double>(2 * tp) / static_cast<double>(denominator);
}

double mean_squared_error(const std::vector<float>& predictions, const std::vector<float>& references) {
  check_pairs(predictions, references, "mse");
  double sum = 0;
  for (size_t i = 0; i < predictions.size(); ++i) {
    const double d = static_cast<double>(references[i]) - static_cast<double>(predictions[i]);
    sum += d * d;
  }
  return sum / static_cast<double>(predictions.size());
}

double pearson_r(const std::vector<float>& x, const std::vector<float>& y) {
  check_pairs(x, y, "pearson");
  return pearson_of(widened(x), widened(y));
}

std::vector<double> average_ranks(const std::vector<float>& x) {
  std::vector<size_t> order(x.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
  std::vector<double> ranks(x.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]]) ++j;
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j + 1)) / 2.0;  // mean of i+1 .. j+1
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

double spearman_rho(const std::vector<float>& x, const std::vector<float>& y) {
  check_pairs(x, y, "spearmanr");
  return pearson_of(average_ranks(x), average_ranks(y));
}

std::vector<NamedMetric> glue_metrics(GlueMetric metric, const std::vector<int32_t>& predictions,
                                      const std::vector<int32_t>& references) {
  switch (metric) {
    case GlueMetric::kAccuracy: return {{"accuracy", accuracy(predictions, references)}};
    case GlueMetric::kAccuracyF1: {
      const double acc = accuracy(predictions, references), f1 = binary_f1(predictions, references);
      return {{"accuracy", acc}, {"f1", f1}, {"combined_score", (acc + f1) / 2}};
    }
    default: fail("glue_metrics: a regression metric needs float predictions");
  }
}

std::vector<NamedMetric> glue_metrics(GlueMetric metric, const std::vector<float>& predictions,
                                      const std::vector<float>& references) {
  switch (metric) {
    case GlueMetric::kMse: return {{"mse", mean_squared_error(predictions, references)}};
    case GlueMetric::kPearsonSpearman: {
      const double p = pearson_r(predictions, references), s = spearman_rho(predictions, references);
      return {{"pearson", p}, {"spearmanr", s}, {"combined_score", (p + s) / 2}};
    }
    default: fail("glue_metrics: a classification metric needs class predictions");
  }
}

std::vector<NamedMetric> prefixed(std::vector<NamedMetric> metrics, const std::string& prefix) {
  for (NamedMetric& m : metrics) m.name = prefix + "_" + m.name;
  return metrics;
}

}  // namespace cpuft
