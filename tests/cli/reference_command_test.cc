// The run_qa.py reference command line runs under `cpuft train` unchanged but for the program name
// (and, here, a tiny model and short windows): flags that mean nothing on CPUs get a one-line notice.
#include "cli/e2e_fixture.h"

namespace cpuft_e2e {
namespace {

using ReferenceCommand = E2eTest;

TEST_F(ReferenceCommand, RunQaFlagsTrainAndEvaluate) {
  const std::string model = tiny_model();
  const std::string train = squad_file("train.json", 40, 1);
  const std::string dev = squad_file("dev.json", 8, 2);
  const std::string out = path("debug_squad");
  fs::create_directories(out);
  write_text(out + "/stale.txt", "from an earlier run");  // --overwrite_output_dir lets it train here
  ProcessResult r = cpuft({"train", "--model_name_or_path", model, "--dataset_name", "squad", "--train_file", train,
                           "--validation_file", dev, "--do_train", "--do_eval", "--per_device_train_batch_size", "12",
                           "--learning_rate", "3e-5", "--num_train_epochs", "2", "--max_seq_length", "64",
                           "--doc_stride", "16", "--output_dir", out, "--overwrite_output_dir", "--max_train_samples",
                           "24", "--no_cuda", "--use_ipex", "--ddp_backend", "ccl", "--report_to", "none",
                           "--threads", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* flag : {"--dataset_name", "--no_cuda", "--use_ipex", "--ddp_backend"})
    EXPECT_NE(r.err.find(flag), std::string::npos) << "no notice for " << flag << ":\n" << r.err;
  // run_qa pads every training window to --max_seq_length: the notice says what that costs.
  EXPECT_NE(r.err.find("% of the positions an epoch computes are padding (every window padded to --max_seq_length 64); "
                       "--pad_to_max_length false --group_by_length would compute "),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out + "/runs")) << "--report_to none writes no TensorBoard files";
  // 24 windows in batches of 12: 2 steps per epoch, 2 epochs, counted as the Trainer counts them.
  const nlohmann::json state = read_json(out + "/trainer_state.json");
  EXPECT_EQ(state.at("global_step"), 4);
  EXPECT_DOUBLE_EQ(state.at("epoch").get<double>(), 2.0);
  EXPECT_EQ(read_json(out + "/train_results.json").at("train_samples"), 24);
  EXPECT_EQ(read_json(out + "/eval_results.json").at("eval_samples"), 8);
}

}  // namespace
}  // namespace cpuft_e2e
