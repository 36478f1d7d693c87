#include "cpuft/infer/task_evaluator.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpuft/data/batch.h"
#include "cpuft/eval/classification_metrics.h"
#include "cpuft/eval/results_files.h"
#include "cpuft/eval/seqeval_metrics.h"
#include "cpuft/eval/task_prediction_files.h"
#include "cpuft/kernels/class_loss.h"
#include "cpuft/model/batch_view.h"
#include "cpuft/util/atomic_file.h"
#include "cpuft/util/clock.h"
#include "cpuft/util/error.h"
#include "cpuft/util/log.h"

namespace cpuft {
namespace {

// The logits of every feature, `per` floats each, in feature order on every rank: rank r computes the
// r-th contiguous share in packed batches of at most batch_size x seq_len tokens.
std::vector<float> task_logits(QaModel& model, const std::vector<Feature>& features, int batch_size, int seq_len,
                               size_t per, Communicator& comm) {
  const size_t n = features.size();
  const size_t lo = n * static_cast<size_t>(comm.rank()) / static_cast<size_t>(comm.size());
  const size_t hi = n * static_cast<size_t>(comm.rank() + 1) / static_cast<size_t>(comm.size());
  const size_t budget = static_cast<size_t>(batch_size) * static_cast<size_t>(seq_len);
  std::vector<float> mine((hi - lo) * per);
  BatchBuffers buf;
  for (size_t b = lo, e = lo; b < hi; b = e) {
    for (size_t tokens = 0;
         e < hi && e - b < static_cast<size_t>(batch_size) &&
         (e == b || tokens + static_cast<size_t>(feature_length(features[e])) <= budget);
         ++e)
      tokens += static_cast<size_t>(feature_length(features[e]));
    buf.pack(features, b, e, seq_len);
    model.forward_classes(batch_view(buf), mine.data() + (b - lo) * per);
  }
  if (comm.size() == 1) return mine;
  std::string bytes(mine.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), mine.data(), bytes.size());
  std::vector<float> all(n * per);
  size_t at = 0;
  for (const std::string& part : comm.allgather_bytes(bytes)) {
    std::memcpy(all.data() + at, part.data(), part.size());
    at += part.size() / sizeof(float);
  }
  if (at != all.size()) fail_internal("evaluation: gathered ", at, " logits, expected ", all.size());
  return all;
}

// A feature's token labels padded with kLossIgnoreIndex to seq_len.
std::vector<int32_t> padded_labels(const Feature& f, int seq_len) {
  std::vector<int32_t> out(static_cast<size_t>(seq_len), kLossIgnoreIndex);
  std::copy(f.token_labels.begin(), f.token_labels.end(), out.begin());
  return out;
}

// The Trainer's eval_loss: each batch of batch_size features (in order, as one process) contributes
// its mean loss weighted by its size.
double eval_loss(const std::vector<float>& logits, const TaskData& data, const TaskLabels& labels, int batch_size,
                 int seq_len, int64_t width) {
  const size_t n = data.features.size();
  double total = 0;
  for (size_t b = 0; b < n; b += static_cast<size_t>(batch_size)) {
    const size_t e = std::min(n, b + static_cast<size_t>(batch_size));
    const int64_t rows = static_cast<int64_t>(e - b);
    float loss = 0;
    if (labels.task == TaskHead::kTokenClassification) {
      std::vector<int32_t> y;
      for (size_t i = b; i < e; ++i) {
        const std::vector<int32_t> p = padded_labels(data.features[i], seq_len);
        y.insert(y.end(), p.begin(), p.end());
      }
      loss = class_cross_entropy(nullptr, logits.data() + b * seq_len * width, y.data(), rows * seq_len, width, 1.f).loss;
    } else if (labels.regression()) {
      std::vector<float> t;
      for (size_t i = b; i < e; ++i) t.push_back(data.features[i].target);
      loss = mse_loss(nullptr, logits.data() + b, t.data(), rows, 1.f);
    } else {
      std::vector<int32_t> y;
      for (size_t i = b; i < e; ++i) y.push_back(data.features[i].label);
      loss = class_cross_entropy(nullptr, logits.data() + b * width, y.data(), rows, width, 1.f).loss;
    }
    total += static_cast<double>(loss) * static_cast<double>(rows);
  }
  return n ? total / static_cast<double>(n) : NAN;
}

// Per feature, the tag names at its scored positions: from the logits (predicted) or the labels.
std::vector<std::vector<std::string>> tag_sentences(const TaskData& data, const TaskLabels& labels,
                                                    const std::vector<float>* logits, int seq_len, int64_t width) {
  std::vector<std::vector<std::string>> out(data.features.size());
  for (size_t i = 0; i < data.features.size(); ++i) {
    const std::vector<uint8_t>& scored = data.scored[i];
    std::vector<int32_t> ids;
    if (logits)
      ids = argmax_rows(logits->data() + i * static_cast<size_t>(seq_len * width), seq_len, width);
    for (size_t t = 0; t < scored.size(); ++t)
      if (scored[t]) out[i].push_back(labels.tags.names[static_cast<size_t>(logits ? ids[t] : data.features[i].token_labels[t])]);
  }
  return out;
}

nlohmann::json metrics_json(const std::vector<NamedMetric>& metrics, const std::string& split) {
  nlohmann::json m = nlohmann::json::object();
  for (const NamedMetric& x : prefixed(metrics, split)) m[x.name] = x.value;
  return m;
}

// The metrics of predictions `logits` (null: the references themselves, for the keys only).
nlohmann::json scores(const std::vector<float>* logits, const TaskData& data, const TaskLabels& labels,
                      bool entity_level, int seq_len, int64_t width, const std::string& split) {
  if (labels.task == TaskHead::kTokenClassification) {
    const auto refs = tag_sentences(data, labels, nullptr, seq_len, width);
    const auto preds = logits ? tag_sentences(data, labels, logits, seq_len, width) : refs;
    return metrics_json(run_ner_metrics(seqeval_scores(preds, refs), entity_level), split);
  }
  if (labels.regression()) {
    std::vector<float> refs, preds;
    for (size_t i = 0; i < data.features.size(); ++i) {
      refs.push_back(data.features[i].target);
      preds.push_back(logits ? (*logits)[i] : data.features[i].target);
    }
    return metrics_json(glue_metrics(GlueMetric::kMse, preds, refs), split);
  }
  std::vector<int32_t> refs;
  for (const Feature& f : data.features) refs.push_back(f.label);
  const std::vector<int32_t> preds =
      logits ? argmax_rows(logits->data(), static_cast<int64_t>(data.features.size()), width) : refs;
  return metrics_json(glue_metrics(GlueMetric::kAccuracy, preds, refs), split);
}

}  // namespace

TaskOutcome evaluate_task(QaModel& model, const TaskData& data, const TaskLabels& labels, bool entity_level_metrics,
                          int batch_size, int seq_len, Communicator& comm, const std::string& split, bool with_metrics,
                          PhaseTimes* phases) {
  const double t0 = now_s();
  const int64_t width = model.table().head().width;
  const bool token = labels.task == TaskHead::kTokenClassification;
  const size_t per = static_cast<size_t>(token ? seq_len * width : width);
  std::vector<float> logits;
  {
    PhaseScope scope(phases, "forward");
    logits = task_logits(model, data.features, batch_size, seq_len, per, comm);
  }
  TaskOutcome out;
  out.metrics = nlohmann::json::object();
  if (with_metrics) {
    PhaseScope scope(phases, "metrics");
    out.metrics[split + "_loss"] = eval_loss(logits, data, labels, batch_size, seq_len, width);
    out.metrics.update(scores(&logits, data, labels, entity_level_metrics, seq_len, width, split));
  }
  if (token) {
    out.predictions_file = kNerPredictionsFile;
    out.predictions_text = ner_predictions_text(tag_sentences(data, labels, &logits, seq_len, width));
  } else if (labels.regression()) {
    out.predictions_file = kGluePredictResultsFile;
    out.predictions_text = glue_predict_results_text(logits);
  } else {
    std::vector<std::string> names;
    for (int32_t id : argmax_rows(logits.data(), static_cast<int64_t>(data.features.size()), width))
      names.push_back(labels.labels.names[static_cast<size_t>(id)]);
    out.predictions_file = kGluePredictResultsFile;
    out.predictions_text = glue_predict_results_text(names);
  }
  out.metrics.update(evaluation_speed_metrics(split, now_s() - t0, static_cast<int64_t>(data.features.size()),
                                              static_cast<int64_t>(batch_size) * comm.size()));
  return out;
}

std::vector<std::string> task_metric_keys(const TaskData& data, const TaskLabels& labels, bool entity_level_metrics,
                                          const std::string& split) {
  nlohmann::json keys = scores(nullptr, data, labels, entity_level_metrics, 1, 1, split);
  keys[split + "_loss"] = 0;
  keys.update(speed_metrics(split, SpeedInputs{1, 1, 1}));
  std::vector<std::string> out;
  for (auto it = keys.begin(); it != keys.end(); ++it) out.push_back(it.key());
  return out;
}

void write_task_results(const std::string& out_dir, const std::string& split, const TaskOutcome& out,
                        const Communicator& comm) {
  if (!comm.is_root()) return;
  if (split == "predict") write_file_atomic(out_dir + "/" + out.predictions_file, out.predictions_text);
  save_metrics(out_dir, split, out.metrics);
  log_info("***** ", split, " metrics *****");
  for (auto it = out.metrics.begin(); it != out.metrics.end(); ++it) log_info("  ", it.key(), " = ", it.value().dump());
}

}  // namespace cpuft
