// The metrics of run_glue.py's compute_metrics (docs/tasks.md, Metrics), as `evaluate` computes them
// with scikit-learn and SciPy: accuracy (sklearn accuracy_score), F1 of the positive class 1 (sklearn's
// binary f1_score, 0 when there is no positive prediction or reference), mean squared error, Pearson's
// r and Spearman's rho (ties get the average rank, as scipy.stats.rankdata). Sums are in double; the
// Python metrics see float32 arrays where the predictions are float32, so regression metrics agree to
// float32 rounding (docs/parity.md, Classification metrics).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cpuft {

struct NamedMetric {
  std::string name;  // without the split prefix the Trainer adds ("accuracy" -> "eval_accuracy")
  double value = 0;
};

// Which metric run_glue loads: with --train_file (no --task_name) "accuracy" for classification and
// "mse" for regression; GLUE's sets for MRPC / QQP (accuracy + f1) and STS-B (pearson + spearmanr) add
// "combined_score", the mean of the others, as compute_metrics does when a metric returns more than one.
enum class GlueMetric { kAccuracy, kMse, kAccuracyF1, kPearsonSpearman };

// np.argmax(logits, axis=1): the first largest logit of each row (the first NaN where a row has one).
std::vector<int32_t> argmax_rows(const float* logits, int64_t rows, int64_t num_labels);

double accuracy(const std::vector<int32_t>& predictions, const std::vector<int32_t>& references);
double binary_f1(const std::vector<int32_t>& predictions, const std::vector<int32_t>& references);
double mean_squared_error(const std::vector<float>& predictions, const std::vector<float>& references);
double pearson_r(const std::vector<float>& x, const std::vector<float>& y);     // NaN when either is constant
double spearman_rho(const std::vector<float>& x, const std::vector<float>& y);  // NaN when either is constant

// scipy.stats.rankdata(x, method="average"): 1-based ranks, ties sharing their mean rank.
std::vector<double> average_ranks(const std::vector<float>& x);

// compute_metrics' result for class predictions (kAccuracy, kAccuracyF1) or regression predictions
// (kMse, kPearsonSpearman), in the order the Python dict has it. Throws on empty or unequal inputs.
std::vector<NamedMetric> glue_metrics(GlueMetric metric, const std::vector<int32_t>& predictions,
                                      const std::vector<int32_t>& references);
std::vector<NamedMetric> glue_metrics(GlueMetric metric, const std::vector<float>& predictions,
                                      const std::vector<float>& references);

// The metric names prefixed as the Trainer reports them: prefixed(m, "eval") -> eval_accuracy, ...
std::vector<NamedMetric> prefixed(std::vector<NamedMetric> metrics, const std::string& prefix);

}  // namespace cpuft
