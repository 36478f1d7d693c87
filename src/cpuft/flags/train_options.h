// What the train / evaluate / predict flags (TrainArgs) choose for the modules that do the work, kept
// with the flags so that every command reads them the same way: the windows of data/feature_builder,
// the answer search of eval/postprocess, the communicator's watchdog.
#pragma once

#include "cpuft/data/feature_builder.h"
#include "cpuft/data/task_data.h"
#include "cpuft/eval/postprocess.h"
#include "cpuft/flags/train_args.h"
#include "cpuft/parallel/communicator.h"

namespace cpuft {

// --max_seq_length, --doc_stride, --pad_to_max_length.
FeatureOptions feature_options(const TrainArgs& args);
// The classification jobs' data options (data/task_data.h).
TaskOptions task_options(const TrainArgs& args);
// --n_best_size, --max_answer_length, --version_2_with_negative, --null_score_diff_threshold.
PostprocessOptions postprocess_options(const TrainArgs& args);
// --collective_timeout.
CommOptions comm_options(const TrainArgs& args);

}  // namespace cpuft
