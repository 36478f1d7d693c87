#include "cpuft/infer/evaluator.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpuft/eval/results_files.h"
#include "cpuft/eval/squad_metrics.h"
#include "cpuft/model/batch_view.h"
#include "cpuft/util/clock.h"
#include "cpuft/util/error.h"

namespace cpuft {

void compute_logits(QaModel& model, const std::vector<Feature>& features, int batch_size, int seq_len,
                    Communicator& comm, std::vector<float>& start_logits, std::vector<float>& end_logits) {
  const size_t n = features.size();
  const size_t per = static_cast<size_t>(seq_len);
  const size_t lo = n * static_cast<size_t>(comm.rank()) / static_cast<size_t>(comm.size());
  const size_t hi = n * static_cast<size_t>(comm.rank() + 1) / static_cast<size_t>(comm.size());
  // Packed batches of at most batch_size x seq_len real tokens (the activations reserved): short
  // windows share a pass instead of each taking a padded row.
  const size_t budget = static_cast<size_t>(batch_size) * per;
  std::vector<float> mine_start((hi - lo) * per), mine_end((hi - lo) * per);
  BatchBuffers buf;
  for (size_t b = lo, e = lo; b < hi; b = e) {
    for (size_t tokens = 0; e < hi && (e == b || tokens + static_cast<size_t>(feature_length(features[e])) <= budget); ++e)
      tokens += static_cast<size_t>(feature_length(features[e]));
    buf.pack(features, b, e, seq_len);
    model.forward(batch_view(buf), mine_start.data() + (b - lo) * per, mine_end.data() + (b - lo) * per);
  }

  start_logits.resize(n * per);
  end_logits.resize(n * per);
  if (comm.size() == 1) {
    start_logits = std::move(mine_start);
    end_logits = std::move(mine_end);
    return;
  }
  // Gather both halves at once: [start | end] of this rank's share.
  std::string mine(2 * mine_start.size() * sizeof(float), '\0');
  std::memcpy(mine.data(), mine_start.data(), mine_start.size() * sizeof(float));
  std::memcpy(mine.data() + mine_start.size() * sizeof(float), mine_end.data(), mine_end.size() * sizeof(float));
  std::vector<std::string> all = comm.allgather_bytes(mine);
  size_t at = 0;
  for (const std::string& part : all) {
    const size_t count = part.size() / sizeof(float) / 2;
    std::memcpy(start_logits.data() + at, part.data(), count * sizeof(float));
    std::memcpy(end_logits.data() + at, part.data() + count * sizeof(float), count * sizeof(float));
    at += count;
  }
  if (at != n * per) fail_internal("evaluation: gathered ", at, " logits from ", comm.size(), " ranks, expected ", n * per);
}

nlohmann::json squad_metrics_json(const QaData& data, const std::vector<ExamplePrediction>& predictions,
                                  const std::string& split) {
  nlohmann::json m;
  const std::string p = split + "_";
  IdPredictions ids = id_predictions(predictions);
  if (data.version == 1) {
    SquadV1Scores s = squad_v1_score(data.examples, ids);
    m[p + "exact_match"] = s.exact_match;
    m[p + "f1"] = s.f1;
    return m;
  }
  SquadV2Scores s = squad_v2_score(data.examples, ids);
  m[p + "exact"] = s.exact;
  m[p + "f1"] = s.f1;
  m[p + "total"] = s.total;
  if (s.has_has_ans) {
    m[p + "HasAns_exact"] = s.has_ans_exact;
    m[p + "HasAns_f1"] = s.has_ans_f1;
    m[p + "HasAns_total"] = s.has_ans_total;
  }
  if (s.has_no_ans) {
    m[p + "NoAns_exact"] = s.no_ans_exact;
    m[p + "NoAns_f1"] = s.no_ans_f1;
    m[p + "NoAns_total"] = s.no_ans_total;
  }
  m[p + "best_exact"] = s.best_exact;
  m[p + "best_exact_thresh"] = s.best_exact_thresh;
  m[p + "best_f1"] = s.best_f1;
  m[p + "best_f1_thresh"] = s.best_f1_thresh;
  return m;
}

EvalOutcome evaluate_qa(QaModel& model, const QaData& data, const PostprocessOptions& post, int batch_size,
                        int seq_len, Communicator& comm, const std::string& split, bool with_metrics,
                        PhaseTimes* phases) {
  const double t0 = now_s();
  std::vector<float> start, end;
  {
    PhaseScope scope(phases, "forward");
    compute_logits(model, data.features, batch_size, seq_len, comm, start, end);
  }
  QaLogits logits;
  logits.start = start.data();
  logits.end = end.data();
  logits.num_features = static_cast<int64_t>(data.features.size());
  logits.seq_len = seq_len;
  EvalOutcome out;
  {
    PhaseScope scope(phases, "post-processing");
    out.predictions = postprocess_qa_predictions(data.examples, data.features, logits, post);
  }
  if (with_metrics) {
    PhaseScope scope(phases, "metrics");
    out.metrics = squad_metrics_json(data, out.predictions, split);
  }
  out.metrics.update(evaluation_speed_metrics(split, now_s() - t0, static_cast<int64_t>(data.features.size()),
                                              static_cast<int64_t>(batch_size) * comm.size()));
  return out;
}

}  // namespace cpuft
