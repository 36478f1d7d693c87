#include "cpuft/train/run_setup.h"

#include <omp.h>

#include <sstream>

#include "cpuft/cpu/placement.h"
#include "cpuft/cpu/topology.h"
#include "cpuft/io/model_dir.h"
#include "cpuft/util/atomic_file.h"
#include "cpuft/util/log.h"

namespace cpuft {

int configure_threads(int threads, Communicator& comm) {
  Topology topo = read_topology();
  PlacementOptions po;
  po.ranks_per_node = comm.local_size();
  po.omp_threads = threads > 0 ? threads : omp_threads_from_env();
  po.reserve_core = comm.size() > 1;  // a world of one has no MPI progress to leave room for
  PlacementPlan plan = plan_placement(topo, po);
  for (const std::string& w : plan.warnings) log_warn(w);
  const RankPlacement& mine = plan.ranks.at(static_cast<size_t>(comm.local_rank()));
  pin_omp_threads(mine.thread_cpus);
  if (comm.size() > 1)
    log_message(LogLevel::Info, true,
                str_cat("rank ", comm.rank(), " on ", comm.hostname(), ": ", mine.thread_cpus.size(),
                        " threads on cpus ", format_cpu_list(mine.thread_cpus)));
  else
    log_info(mine.thread_cpus.size(), " threads on cpus ", format_cpu_list(mine.thread_cpus));
  return static_cast<int>(mine.thread_cpus.size());
}

LoadedModel load_model(const TrainArgs& args, Communicator& comm, const std::string& weights_dir) {
  if (args.model_name_or_path.empty())
    fail("--model_name_or_path: missing, expected a Hugging Face model directory or a repo id in the local cache");
  LoadedModel m;
  m.model_dir = resolve_model_dir(args.model_name_or_path);
  m.tokenizer_dir = args.tokenizer_name.empty() ? m.model_dir : resolve_model_dir(args.tokenizer_name);
  m.tokenizer = std::make_unique<Tokenizer>(Tokenizer::load(m.tokenizer_dir));
  std::ostringstream notices;
  const std::string& dir = weights_dir.empty() ? m.model_dir : weights_dir;
  m.model = std::make_unique<QaModel>(
      QaModel::from_pretrained(dir, args.bf16, static_cast<uint64_t>(args.seed), notices));
  std::istringstream lines(notices.str());
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("cpuft: ", 0) == 0) line.erase(0, 7);
    if (!line.empty()) log_notice(line);
  }
  // Every rank starts from rank 0's weights (the qa_outputs initialisation included).
  if (comm.size() > 1) {
    comm.broadcast(m.model->params(), m.model->num_params(), 0);
    m.model->refresh_bf16_weights();
  }
  return m;
}

void copy_tokenizer_files(const Tokenizer& tokenizer, const std::string& dir) {
  for (const std::string& src : tokenizer.source_files()) {
    const size_t slash = src.find_last_of('/');
    const std::string name = slash == std::string::npos ? src : src.substr(slash + 1);
    write_file_atomic(dir + "/" + name, read_file(src));
  }
}

}  // namespace cpuft
