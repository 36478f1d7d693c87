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
// --input is answered a chunk of lines at a time, each chunk's answers written before the next chunk
// is read: memory stays flat however long the input is, and answers flow as a filter's should.
#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>

#include "cpuft/cli/commands.h"
#include "cpuft/cli/standard_streams.h"
#include "cpuft/data/question_lines.h"
#include "cpuft/flags/args.h"
#include "cpuft/flags/train_options.h"
#include "cpuft/infer/inference.h"
#include "cpuft/util/log.h"

namespace cpuft {

namespace {

// Questions answered per chunk of --input: enough to fill many batches, few enough that a chunk of
// long contexts stays small.
constexpr size_t kChunkQuestions = 256;
constexpr size_t kChunkBytes = size_t{8} << 20;

// One JSON line per prediction, in order (rank 0 only has predictions).
void write_answers(const std::vector<ExamplePrediction>& predictions, const std::vector<bool>& id_given) {
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
}

}  // namespace

int cmd_predict(const Argv& argv, Communicator& comm, const StartComm& start) {
  ParsedArgs parsed = parse_train_args(Command::kPredict, argv);
  if (parsed.help) {
    std::fputs(train_args_help(Command::kPredict).c_str(), stdout);
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

  std::optional<QuestionLineReader> input;
  if (has_input) input.emplace(*args.input);  // a missing or non-regular file is refused before the model loads
  // The first chunk holds --question (when given) and the first lines of --input.
  QaData data;
  std::vector<bool> id_given;  // per example: echo its id (only ids the input gave)
  data.path = has_input ? input->source() : "--question";
  if (has_q) {
    Example ex;
    ex.id = "0";
    ex.question = *args.question;
    ex.context = *args.context;
    data.examples.push_back(ex);
    id_given.push_back(false);
  }
  auto read_chunk = [&] {
    if (!input) return;
    QuestionLines lines;
    input->read(lines, kChunkQuestions, kChunkBytes);
    data.examples.insert(data.examples.end(), std::make_move_iterator(lines.examples.begin()),
                         std::make_move_iterator(lines.examples.end()));
    id_given.insert(id_given.end(), lines.id_given.begin(), lines.id_given.end());
  };
  read_chunk();
  // Empty input, empty output (as a filter in a pipeline should); the model is not even loaded.
  if (data.examples.empty()) return 0;
  LoadedModel loaded = load_for_questions(args, comm);
  while (!data.examples.empty()) {
    write_answers(answer_questions(args, comm, loaded, data), id_given);
    flush_stdout();  // this chunk's answers are out (or the write failed) before the next is read
    data.examples.clear();
    data.features.clear();
    id_given.clear();
    read_chunk();
  }
  return 0;  // main flushes stdout and reports a failed write
}

}  // namespace cpuft
