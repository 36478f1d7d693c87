// cpuft quantize: a fine-tuned model (question answering, text or token classification) -> an int8
// model directory for evaluate and predict (docs/quantization.md). Every encoder linear layer gets s8
// weights with one scale per output channel (the task head stays f32); activations are quantized per
// token at run time, or, for a QA model with --calibration_file, with one range per layer measured on
// the first --calibration_windows windows of a SQuAD file. The source
// directory is only read; the output appears whole or not at all (written into a temporary sibling
// directory, renamed into place).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "cpuft/cli/commands.h"
#include "cpuft/data/batch.h"
#include "cpuft/data/feature_builder.h"
#include "cpuft/data/qa_data.h"
#include "cpuft/flags/flag_help.h"
#include "cpuft/flags/flag_parser.h"
#include "cpuft/io/model_dir.h"
#include "cpuft/io/quantization_config.h"
#include "cpuft/kernels/gemm_int8.h"
#include "cpuft/model/batch_view.h"
#include "cpuft/model/int8_model.h"
#include "cpuft/run/setup.h"
#include "cpuft/util/atomic_file.h"
#include "cpuft/util/dir_lock.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/log.h"

namespace cpuft {
namespace {

const char* kQuantizeAbout =
    "Writes an int8 copy of the fine-tuned model of --model_name_or_path (a Bert or DistilBert\n"
    "ForQuestionAnswering, ForSequenceClassification or ForTokenClassification directory) for cpuft evaluate\n"
    "and cpuft predict: every encoder linear layer gets int8 weights with one scale per output channel (the\n"
    "task head stays float32). Activations are quantized per token as they arrive, or, for a QA model with\n"
    "--calibration_file, with one range per layer measured on its first windows. The model directory is not\n"
    "changed; --output_dir must not exist or be empty, and appears whole or not at all.\n"
    "The format: docs/quantization.md.\n";

struct QuantizeArgs {
  std::string model, output_dir, calibration_file;
  int windows = 256, max_seq_length = 384, doc_stride = 128, batch = 8, threads = 0;
};

// Reads the flags into `a`; false when --help was asked for (and printed).
bool parse(const Argv& argv, QuantizeArgs& a) {
  FlagTable t("quantize", kQuantizeAbout);
  t.text("model_name_or_path", "DIR", &a.model, "the fine-tuned model directory to quantize").as_required();
  t.text("output_dir", "OUT", &a.output_dir, "the new directory for the int8 model").as_required();
  t.text("calibration_file", "FILE", &a.calibration_file,
         "a SQuAD JSON file to measure static activation ranges on (question-answering models)")
      .with_default_text("none: activations quantized per token");
  t.integer("calibration_windows", &a.windows, 1, 1000000, "windows of --calibration_file to measure");
  // The ranges of the same flags of cpuft train (flags/train_flags.cc).
  t.integer("max_seq_length", &a.max_seq_length, 4, 8192, "window length for calibration");
  t.integer("doc_stride", &a.doc_stride, 0, 8191, "window overlap for calibration");
  t.integer("per_device_eval_batch_size", &a.batch, 1, 4096, "windows per calibration batch");
  t.integer("threads", &a.threads, 0, 1024, "OpenMP threads (0: the cores of this process's share)");
  if (parse_flags(t, argv).help) {
    std::fputs(flag_help(t).c_str(), stdout);
    return false;
  }
  if (a.doc_stride >= a.max_seq_length)
    fail("--doc_stride: found ", a.doc_stride, ", expected less than --max_seq_length (", a.max_seq_length, ")");
  return true;
}

// The architectures quantize supports: a fine-tuned model of a family cpuft runs (question answering,
// sequence or token classification), with its trained head.
void check_architecture(const std::string& dir, const ModelConfig& config) {
  const std::string path = dir + "/config.json";
  const std::string want = architecture_name(config.family, config.head.task);
  const nlohmann::json arch = config.raw.value("architectures", nlohmann::json());
  const bool ok = arch.is_array() && std::find(arch.begin(), arch.end(), nlohmann::json(want)) != arch.end();
  if (!ok)
    fail(path, ": architectures is ", arch.is_null() ? std::string("missing") : json_preview(arch), "; cpuft quantize supports ",
         qa_architecture_name(config.family), ", ", architecture_name(config.family, TaskHead::kSequenceClassification),
         " and ", architecture_name(config.family, TaskHead::kTokenClassification),
         " (a fine-tuned model, e.g. by cpuft train)");
  WeightFiles weights(dir, config.family);
  for (const std::string& module : int8_f32_modules(config.family, config.head.task))
    if (!weights.find(module + ".weight") || !weights.find(module + ".bias"))
      fail(weights.files().front(), ": has no ", module, ".weight / ", module, ".bias; cpuft quantize needs a model "
           "fine-tuned for ", task_name(config.head.task), " (its ", want, " head)");
}

// True when `dir` holds nothing but a lock file (another process's: DirLock then names it; or one a
// killed quantize left).
bool empty_but_for_a_lock(const std::filesystem::path& dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().filename() != kDirLockFile) return false;
  return !ec;
}

// Where the int8 model goes: --output_dir, or the directory it links to (as train's output directory:
// a link is followed, never replaced). Refused: the model directory itself (however it is reached),
// a file, a directory that is not empty, a link to nothing.
std::filesystem::path output_target(const std::string& out, const std::string& model_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(fs::absolute(out), ec);
  if (ec) fail("--output_dir: ", out, ": ", ec.message());
  if (fs::is_symlink(target, ec))
    fail("--output_dir: ", out, " is a symbolic link to ", fs::read_symlink(target, ec).string(),
         ", which does not exist; expected a new or empty directory (or a link to one)");
  if (fs::equivalent(target, model_dir, ec))
    fail("--output_dir: ", out, " is the model directory itself; the original is kept: choose a new directory");
  if (fs::exists(target, ec)) {
    if (!fs::is_directory(target, ec)) fail("--output_dir: ", out, " is a file; expected a new directory");
    if (!empty_but_for_a_lock(target)) fail("--output_dir: ", out, " is not empty; expected a new or empty directory");
  }
  return target;
}

// Runs the model over the first `windows` windows of the calibration file; returns each layer's range.
InputRanges calibrate(QaModel& model, const Tokenizer& tokenizer, const QuantizeArgs& a, int64_t* used) {
  FeatureOptions fo;
  fo.max_seq_length = a.max_seq_length;
  fo.doc_stride = a.doc_stride;
  QaData data = load_eval_data(a.calibration_file, tokenizer, fo, std::nullopt);
  if (data.features.empty()) fail(a.calibration_file, ": no questions, expected a SQuAD file to calibrate with");
  const size_t n = std::min(data.features.size(), static_cast<size_t>(a.windows));
  *used = static_cast<int64_t>(n);
  if (n < static_cast<size_t>(a.windows))
    log_notice(a.calibration_file, " has ", n, " windows of ", a.max_seq_length, " tokens; calibrating on all of them (--calibration_windows ", a.windows, ")");
  model.reserve(a.batch, a.max_seq_length, /*training=*/false);
  InputRangeRecorder recorder(model);
  std::vector<float> start(static_cast<size_t>(a.batch) * a.max_seq_length), end(start.size());
  BatchBuffers buf;
  for (size_t b = 0; b < n; b += static_cast<size_t>(a.batch)) {
    buf.pack(data.features, b, std::min(n, b + static_cast<size_t>(a.batch)), a.max_seq_length);
    model.forward(batch_view(buf), start.data(), end.data());
  }
  return recorder.ranges();
}

}  // namespace

int cmd_quantize(const Argv& argv, Communicator& comm, const StartComm& start) {
  QuantizeArgs a;
  if (!parse(argv, a)) return 0;
  start({});
  if (comm.size() > 1) fail("cpuft quantize: runs as one process, not under mpirun");
  const std::string dir = resolve_model_dir(a.model);
  const ModelConfig config = load_model_config(dir + "/config.json");
  if (has_quantization_config(config.raw))
    fail(dir, "/config.json: already has a \"quantization_config\"; quantize the full-precision model");
  check_architecture(dir, config);
  if (!a.calibration_file.empty() && config.head.task != TaskHead::kQuestionAnswering)
    fail("--calibration_file: calibrates question-answering models on a SQuAD file; ", dir, " is a ",
         task_name(config.head.task), " model: quantize it without --calibration_file (dynamic per-token activations)");
  output_target(a.output_dir, dir);  // refused before any work; checked again once locked
  configure_threads(a.threads, comm);

  const Tokenizer tokenizer = Tokenizer::load(dir);
  QaModel model = QaModel::from_pretrained(dir, /*bf16=*/false, 42, log_notices());
  if (!a.calibration_file.empty() && a.max_seq_length > model.config().max_position_embeddings)
    fail("--max_seq_length: found ", a.max_seq_length, ", expected at most the model's max_position_embeddings (",
         model.config().max_position_embeddings, ")");
  InputRanges ranges;
  int64_t windows = 0;
  if (!a.calibration_file.empty()) ranges = calibrate(model, tokenizer, a, &windows);

  // The output directory is locked (one writer), and everything goes into a temporary sibling
  // directory that takes the lock file along and is renamed over it at the end.
  const std::filesystem::path out = output_target(a.output_dir, dir);
  std::filesystem::create_directories(out.parent_path());
  std::error_code ec;
  const bool created = std::filesystem::create_directory(out, ec);
  DirLock lock;
  std::string tmp;
  try {
    try {
      lock = DirLock(out.string());
    } catch (const Error& e) {
      fail("--output_dir: ", e.what());
    }
    output_target(a.output_dir, dir);  // nothing came in before the lock was taken
    std::string name = (out.parent_path() / (out.filename().string() + ".tmp-XXXXXX")).string();
    if (!::mkdtemp(name.data())) fail("--output_dir: cannot create a directory beside ", out.string());
    tmp = name;
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::chmod(tmp.c_str(), 0777 & ~mask);  // mkdtemp makes it 0700; the output is an ordinary directory
    save_int8_model(model, tmp, a.calibration_file.empty() ? nullptr : &ranges, windows);
    copy_tokenizer_files(tokenizer, tmp);
    if (::rename(lock.path().c_str(), (tmp + "/" + kDirLockFile).c_str()) != 0)
      fail(lock.path(), ": cannot move the lock file: ", std::strerror(errno));
    commit_directory(tmp, out.string());  // over the now empty directory; the lock file is back at lock.path()
  } catch (...) {
    if (!tmp.empty()) std::filesystem::remove_all(tmp, ec);
    lock.release();
    if (created) std::filesystem::remove(out, ec);  // only when empty
    throw;
  }
  std::printf("cpuft: wrote an int8 model to %s (%s activations%s); int8 products here: %s\n", out.c_str(),
              a.calibration_file.empty() ? "dynamic per-token" : "static",
              a.calibration_file.empty() ? "" : (", calibrated on " + std::to_string(windows) + " windows").c_str(),
              describe_int8_matmul().c_str());
  return 0;
}

}  // namespace cpuft
