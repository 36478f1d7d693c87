// The one inference driver: `cpuft train --do_eval`, `cpuft evaluate`, `cpuft predict --test_file` and
// `cpuft predict` on questions all answer through here (forward passes, answers and scores are
// infer/evaluator.h's; the files written are eval/prediction_files.h's and eval/results_files.h's).
#pragma once

#include <string>
#include <vector>

#include "cpuft/data/feature_builder.h"
#include "cpuft/data/qa_data.h"
#include "cpuft/eval/postprocess.h"
#include "cpuft/flags/train_args.h"
#include "cpuft/infer/evaluator.h"
#include "cpuft/parallel/communicator.h"
#include "cpuft/run/setup.h"

namespace cpuft {

// Rank 0 writes `split`'s prediction files and {split}_results.json (merged into all_results.json)
// into out_dir and logs the metrics; the other ranks do nothing.
void write_results(const std::string& out_dir, const std::string& split, const EvalOutcome& out,
                   bool version_2_with_negative, const Communicator& comm);

// `cpuft evaluate` (--validation_file) and `cpuft predict --test_file`: loads the model, answers the
// SQuAD file, scores it when it has answers, and writes the results into --output_dir. Returns the
// exit code.
int run_evaluate(const TrainArgs& args, Communicator& comm);

// `cpuft predict` on questions, loaded once and then answering chunk after chunk: threads, the model
// and the activation arena for --per_device_eval_batch_size windows.
LoadedModel load_for_questions(const TrainArgs& args, Communicator& comm);

// Builds the windows of data.examples and answers them with `loaded`. One prediction per example, in
// order, on rank 0 (the other ranks get none).
std::vector<ExamplePrediction> answer_questions(const TrainArgs& args, Communicator& comm, LoadedModel& loaded,
                                                QaData& data);

}  // namespace cpuft
