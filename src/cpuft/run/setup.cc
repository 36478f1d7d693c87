#include "cpuft/run/setup.h"

#include <omp.h>

#include <filesystem>
#include <thread>

#include "cpuft/cpu/placement.h"
#include "cpuft/io/model_dir.h"
#include "cpuft/io/quantization_config.h"
#include "cpuft/kernels/gemm.h"
#include "cpuft/kernels/gemm_int8.h"
#include "cpuft/parallel/rank_placement.h"
#include "cpuft/util/atomic_file.h"
#include "cpuft/util/log.h"
#include "cpuft/util/memory.h"
#include "cpuft/util/read_file.h"

namespace cpuft {

RankPlacement configure_threads(int threads, Communicator& comm) {
  const unsigned logical = std::thread::hardware_concurrency();
  if (logical > 0 && threads > static_cast<int>(logical))
    fail("--threads: found ", threads, ", expected at most ", logical, " (the logical CPUs of this machine)");
  PlacementOptions po;
  po.omp_threads = threads;
  LocalPlacement place = place_this_rank(comm, po, /*pin=*/true);
  for (const std::string& w : place.plan.warnings) log_warn(w);
  const std::vector<int>& cpus = place.mine().thread_cpus;
  log_message(LogLevel::kInfo, comm.size() > 1,
              str_cat(comm.size() > 1 ? str_cat("rank ", comm.rank(), " on ", comm.hostname(), ": ") : std::string(),
                      cpus.size(), " threads on cpus ", format_cpu_list(cpus)));
  return place.mine();
}

ModelSource model_source(const TrainArgs& args) {
  ModelSource s;
  s.model_name_or_path = args.model_name_or_path;
  s.tokenizer_name = args.tokenizer_name;
  s.bf16 = args.bf16;
  s.seed = static_cast<uint64_t>(args.seed);
  s.training = args.do_train;
  s.max_seq_length = args.max_seq_length;
  return s;
}

LoadedModel load_model(const ModelSource& source, Communicator& comm, const std::string& weights_dir) {
  if (source.model_name_or_path.empty())
    fail("--model_name_or_path: missing, expected a Hugging Face model directory or a repo id in the local cache");
  LoadedModel m;
  m.model_dir = resolve_model_dir(source.model_name_or_path);
  m.tokenizer_dir = source.tokenizer_name.empty() ? m.model_dir : resolve_model_dir(source.tokenizer_name);
  m.tokenizer = std::make_unique<Tokenizer>(Tokenizer::load(m.tokenizer_dir));
  const std::string& dir = weights_dir.empty() ? m.model_dir : weights_dir;
  // An int8 directory (cpuft quantize) runs evaluation and prediction; training refuses it (from_pretrained).
  const bool int8 = !source.training && is_quantized_model_dir(dir);
  m.model = std::make_unique<QaModel>(int8 ? QaModel::from_int8(dir, log_notices())
                                           : QaModel::from_pretrained(dir, source.bf16, source.seed, log_notices(),
                                                                       source.head ? &*source.head : nullptr));
  // Checked here so that train, evaluate and predict all name the flag (not the model's internals).
  if (source.max_seq_length > m.model->config().max_position_embeddings)
    fail("--max_seq_length: found ", source.max_seq_length, ", expected at most the model's max_position_embeddings (",
         m.model->config().max_position_embeddings, ")");
  // Ids beyond the embedding table would fail only at the first batch, naming neither file.
  if (m.tokenizer->vocab_size() > m.model->config().vocab_size)
    fail(m.tokenizer_dir, ": the tokenizer has token ids up to ", m.tokenizer->vocab_size() - 1, " but ", dir,
         "/config.json has vocab_size ", m.model->config().vocab_size,
         "; expected the tokenizer the model was trained with");
  if (int8 && source.bf16) log_notice("--bf16: ignored for an int8 model (int8 products, f32 everywhere else)");
  if (int8 && int8_activation_levels() < 255) log_notice("int8: ", describe_int8_matmul());
  if (!int8 && source.bf16 && !gemm_bf16_native())
    log_notice("--bf16: oneDNN has no bf16 matrix product on this CPU (", describe_gemm(),
               "); bf16 products are emulated in f32: the numbers of bf16, slower than FP32");
  // Every rank starts from rank 0's weights (the qa_outputs initialisation included).
  if (comm.size() > 1) {
    comm.broadcast(m.model->params(), m.model->num_params(), 0);
    m.model->refresh_bf16_weights();
  }
  return m;
}

size_t reserve_activations(QaModel& model, int64_t batch, int64_t seq_len, bool training, const char* batch_flag,
                           const char* seq_flag) {
  const int seq = static_cast<int>(seq_len);
  const uint64_t activations =
      QaModel::activation_bytes(model.config(), model.bf16(), static_cast<int>(batch), seq, training);
  // Training also holds a gradient and two AdamW moments per parameter.
  const uint64_t state = training ? uint64_t{3} * model.num_params() * sizeof(float) : 0;
  check_fits_in_memory(QaModel::weight_bytes(model.config(), model.bf16()) + state + activations,
                       str_cat(batch_flag, " ", batch, " with ", seq_flag, " ", seq, ": ",
                               training ? "training" : "running", " this model (", format_bytes(activations),
                               " of activations)"));
  return model.reserve(static_cast<int>(batch), seq, training);
}

void copy_tokenizer_files(const Tokenizer& tokenizer, const std::string& dir) {
  for (const std::string& src : tokenizer.source_files()) {
    const size_t slash = src.find_last_of('/');
    const std::string name = slash == std::string::npos ? src : src.substr(slash + 1);
    write_file_atomic(dir + "/" + name, read_file(src, kMaxTokenizerBytes));
  }
}

void create_output_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir, ec))
    fail("--output_dir: cannot create directory ", dir, ec ? ": " + ec.message() : std::string(" (a file is in the way)"));
  try {
    check_directory_writable(dir);
  } catch (const Error& e) {
    fail("--output_dir: ", e.what());
  }
}

DirLock lock_output_dir(const std::string& dir) {
  create_output_dir(dir);
  try {
    return DirLock(dir);
  } catch (const Error& e) {
    fail("--output_dir: ", e.what());
  }
}

}  // namespace cpuft
