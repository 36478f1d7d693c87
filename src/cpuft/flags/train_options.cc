#include "cpuft/flags/train_options.h"

namespace cpuft {

TaskOptions task_options(const TrainArgs& a) {
  TaskOptions o;
  o.task = a.task;
  o.max_seq_length = static_cast<int>(a.max_seq_length);
  o.pad_to_max_length = a.pad_to_max_length;
  o.label_all_tokens = a.label_all_tokens;
  o.token_columns.text_column_name = a.text_column_name;
  o.token_columns.label_column_name = a.label_column_name;
  return o;
}

FeatureOptions feature_options(const TrainArgs& a) {
  FeatureOptions o;
  o.max_seq_length = static_cast<int>(a.max_seq_length);
  o.doc_stride = static_cast<int>(a.doc_stride);
  o.pad_to_max_length = a.pad_to_max_length;
  return o;
}

PostprocessOptions postprocess_options(const TrainArgs& a) {
  PostprocessOptions o;
  o.n_best_size = static_cast<int>(a.n_best_size);
  o.max_answer_length = static_cast<int>(a.max_answer_length);
  o.version_2_with_negative = a.version_2_with_negative;
  o.null_score_diff_threshold = a.null_score_diff_threshold;
  return o;
}

CommOptions comm_options(const TrainArgs& args) {
  CommOptions o;
  o.collective_timeout_s = args.collective_timeout;
  return o;
}

}  // namespace cpuft
