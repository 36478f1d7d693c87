// cpuft predict: answers questions for scripts.
//   --question Q --context C      one question, one JSON line out
//   --input FILE (or - for stdin) JSON lines {"question", "context"[, "id"]} in, one JSON line out each
//   --test_file squad.json        a SQuAD file: predict_* files into --output_dir (required)
// Each answer line is {"answer", "probability", "start", "end"} (+ "id" when the input line has one).
// probability is run_qa's: the softmax of the answer's score over the n-best candidates (not the
// transformers pipeline's score, which normalises start and end over the whole window); start/end is
// the answer's code-point span [start, end) in the context. When no span can answer (e.g. an empty
// context) the line says so plainly: "answer", "probability", "start" and "end" are null (run_qa's
// "empty" placeholder is not an answer).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cpuft/cli/commands.h"
#include "cpuft/data/question_lines.h"
#include "cpuft/flags/args.h"
#include "cpuft/infer/inference.h"
#include "cpuft/util/log.h"

namespace cpuft {

int cmd_predict(const Argv& argv, Communicator& comm, const StartComm& start) {
  ParsedArgs parsed = parse_train_args(Command::Predict, argv);
  if (parsed.help) {
    std::fputs(train_args_help(Command::Predict).c_str(), stdout);
    return 0;
  }
  const TrainArgs& args = parsed.args;
  const bool has_q = args.question.has_value(), has_c = args.context.has_value(), has_input = args.input.has_value();
  if (args.test_file.empty()) {
    if (has_q != has_c)
      fail(has_q ? "--question" : "--context", ": given without ", has_q ? "--context" : "--question");
    if (!has_q && !has_input)
      fail("cpuft predict: nothing to answer, expected --question/--context, --input FILE or --test_file FILE");
  }
  // run_qa writes its results only into the output directory it requires; so does cpuft.
  if (!args.test_file.empty() && args.output_dir.empty())
    fail("--output_dir: missing, expected the directory to write the predict_* result files of --test_file to");
  start(comm_options(args));
  for (const std::string& n : parsed.notices) log_notice(n);
  if (!args.test_file.empty()) return run_evaluate(args, comm);

  QaData data;
  data.path = has_input ? *args.input : "--question";
  std::vector<bool> id_given;  // per example: echo its id (only ids the input gave)
  if (has_q) {
    Example ex;
    ex.id = "0";
    ex.question = *args.question;
    ex.context = *args.context;
    data.examples.push_back(ex);
    id_given.push_back(false);
  }
  if (has_input) {
    QuestionLines more = read_question_lines(*args.input);
    data.examples.insert(data.examples.end(), more.examples.begin(), more.examples.end());
    id_given.insert(id_given.end(), more.id_given.begin(), more.id_given.end());
  }
  // Empty input, empty output (as a filter in a pipeline should); the model is not even loaded.
  if (data.examples.empty()) return 0;
  const std::vector<ExamplePrediction> predictions = answer_questions(args, comm, data);
  for (size_t i = 0; i < predictions.size(); ++i) {
    const ExamplePrediction& p = predictions[i];
    nlohmann::json line;
    if (id_given[i]) line["id"] = p.id;
    const NbestEntry* best = nullptr;
    for (const NbestEntry& e : p.nbest)
      if (e.text == p.text && !e.is_dummy) {
        best = &e;
        break;
      }
    if (best) {
      line["answer"] = p.text;
      line["probability"] = best->probability;
      line["start"] = best->start_char;
      line["end"] = best->end_char;
    } else {  // only run_qa's "empty" placeholder was left: no answer
      line["answer"] = line["probability"] = line["start"] = line["end"] = nullptr;
    }
    std::printf("%s\n", line.dump().c_str());
  }
  return 0;  // main flushes stdout and reports a failed write
}

}  // namespace cpuft
