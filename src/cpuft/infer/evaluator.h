// Evaluation: forward passes over the evaluation features (split across ranks and gathered on rank
// 0), then answers (eval/postprocess) and the official SQuAD metrics, reported with run_qa's metric
// names ("eval_exact_match", "eval_f1" for v1.1; "eval_exact", "eval_HasAns_f1", ... for v2.0).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cpuft/data/qa_data.h"
#include "cpuft/eval/postprocess.h"
#include "cpuft/model/qa_model.h"
#include "cpuft/parallel/communicator.h"
#include "cpuft/util/phase_times.h"

namespace cpuft {

// Start and end logits of every feature, (num_features, seq_len) each, complete on every rank; the
// positions past a feature's length hold QaModel::kPadLogit (no padding is computed). Rank r computes
// the contiguous r-th share of the features in packed batches of at most batch_size x seq_len tokens.
void compute_logits(QaModel& model, const std::vector<Feature>& features, int batch_size, int seq_len,
                    Communicator& comm, std::vector<float>& start_logits, std::vector<float>& end_logits);

struct EvalOutcome {
  std::vector<ExamplePrediction> predictions;
  nlohmann::json metrics;  // with the split prefix, e.g. "eval_f1", plus runtime and throughput
};

// Evaluates `data` and returns the predictions and metrics (on every rank). `split` is the metric
// prefix ("eval" or "predict"); `with_metrics` false skips scoring (for files without answers).
// `phases` (nullable) gets the time of the forward passes, the post-processing and the metrics.
EvalOutcome evaluate_qa(QaModel& model, const QaData& data, const PostprocessOptions& post, int batch_size,
                        int seq_len, Communicator& comm, const std::string& split, bool with_metrics,
                        PhaseTimes* phases = nullptr);

// The metrics as run_qa names them, with `split` prefix.
nlohmann::json squad_metrics_json(const QaData& data, const std::vector<ExamplePrediction>& predictions,
                                  const std::string& split);

}  // namespace cpuft
