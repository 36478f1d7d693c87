// cpuft command line: dispatches to the subcommands (cli/commands.h). MPI is initialised only for the
// commands that run on several ranks; without mpirun they run as a world of one.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "cpuft/cli/commands.h"
#include "cpuft/cli/standard_streams.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/log.h"

namespace {

const char* kUsage =
    "usage: cpuft <command> [flags]        (cpuft <command> --help for its flags)\n"
    "\n"
    "commands:\n"
    "  train          fine-tune a model for question answering (run_qa.py flags); with --do_eval, evaluate\n"
    "  evaluate       evaluate a model on a SQuAD JSON file: EM / F1 (v1.1) or the v2.0 metrics\n"
    "  predict        answer questions: --question/--context, JSON lines, or a SQuAD --test_file\n"
    "  quantize       write an int8 copy of a fine-tuned model for evaluate and predict\n"
    "  doctor         what cpuft sees here: CPU features, AMX, oneDNN, cores, a rank/thread plan\n"
    "  bench          time full training steps on random data: samples/s, GFLOP/s, share of peak;\n"
    "                 under mpirun the data-parallel step: allreduce hidden, scaling efficiency\n"
    "  launch         print and run the mpirun command for a hostfile (Open MPI, MPICH, Intel MPI)\n"
    "  cluster-check  check every host of a hostfile (run under mpirun)\n"
    "  init-model     write a randomly initialised model directory from a config.json\n"
    "  --version      print the version\n"
    "\n"
    "Run several ranks with: mpirun -np N cpuft train ...\n";

// The command's exit status; errors are reported here, one line each.
int run(int argc, char** argv, cpuft::Communicator& comm) {
  try {
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
      std::fputs(kUsage, argc < 2 ? stderr : stdout);
      return argc < 2 ? 2 : 0;
    }
    const std::string cmd = argv[1];
    cpuft::Argv rest(argv + 2, argv + argc);
    if (cmd == "--version" || cmd == "version") {
      std::printf("cpuft %s\n", CPUFT_VERSION);
      return 0;
    }
    if (cmd == "doctor") return cpuft::cmd_doctor(rest);
    if (cmd == "launch") return cpuft::cmd_launch(rest);
    if (cmd == "init-model") return cpuft::cmd_init_model(rest);
    if (cmd == "train" || cmd == "evaluate" || cmd == "predict" || cmd == "cluster-check" ||
        cmd == "bench" || cmd == "quantize") {
      const cpuft::StartComm start = [&](const cpuft::CommOptions& options) {
        comm.init(&argc, &argv, options);
        cpuft::set_log_rank(comm.rank(), comm.size());
      };
      const int rc = cmd == "train"      ? cpuft::cmd_train(rest, comm, start)
                     : cmd == "evaluate" ? cpuft::cmd_evaluate(rest, comm, start)
                     : cmd == "predict"  ? cpuft::cmd_predict(rest, comm, start)
                     : cmd == "bench"    ? cpuft::cmd_bench(rest, comm, start)
                     : cmd == "quantize" ? cpuft::cmd_quantize(rest, comm, start)
                                         : cpuft::cmd_cluster_check(rest, comm, start);
      comm.finalize();
      return rc;
    }
    std::fprintf(stderr, "cpuft: unknown command '%s'\n\n%s", cpuft::text_preview(cmd).c_str(), kUsage);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cpuft: %s\n", cpuft::error_line(e).c_str());
    if (comm.size() > 1) comm.abort(cpuft::exit_status_of(e), e.what());
    return cpuft::exit_status_of(e);
  }
}

}  // namespace

int main(int argc, char** argv) {
  cpuft::guard_standard_descriptors();
  cpuft::Communicator comm;
  return cpuft::finish_stdout(run(argc, argv, comm));
}
