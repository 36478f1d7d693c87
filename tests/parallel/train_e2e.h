// Shared by the tests that run the real `cpuft train` under mpirun (tests/parallel/train_*_test.cc): a
// scratch directory with a tiny random BERT (dropout off), the train command line, and comparisons of
// two runs: their trainer_state.json log histories and their model.safetensors weights.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cpuft/io/safetensors.h"
#include "parallel/mpi_run.h"

namespace cpuft_test {

// Flags every run shares: the bundled SQuAD subset cut to a few dozen features of 64 tokens, so a run
// takes about a second. Callers add the sample count, batch size, steps and output directory.
inline std::string common_train_flags(const std::string& model) {
  return "--model_name_or_path " + model + " --do_train --train_file " CPUFT_SOURCE_DIR
         "/data/squad-mini/train-mini-v1.1.json --max_seq_length 64 --doc_stride 16 --logging_steps 1"
         " --learning_rate 1e-3 --seed 7 --bucket_size_mb 1";  // 1 MB: the 8 MB of gradients make several buckets
}

// `cpuft train ARGS` on `ranks` processes: under mpirun for more than one, as a plain process (a world
// of one) otherwise. timeout bounds a hang.
inline std::string train_command(int ranks, const std::string& args) {
  const std::string train = std::string(CPUFT_BINARY) + " train " + args;
  if (ranks == 1) return "timeout 120 " + train;
  return "timeout 120 mpirun --oversubscribe --bind-to none -np " + std::to_string(ranks) + " " + train;
}

// A scratch directory holding model/, a tiny random BERT, removed at the end of the test.
class TrainE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    prepare_mpirun_env();
    char tmpl[] = "/tmp/cpuft-dist-train-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    model_ = init_model("tiny-bert-no-dropout.json", "model");
  }
  void TearDown() override {
    if (!dir_.empty()) run_command("rm -rf " + dir_);
  }
  // cpuft links the same cpuft_parallel as the helper: without MPI in it, every rank would be a world of one.
  static bool mpi_usable() { return have_mpirun() && helper_has_mpi(CPUFT_PARALLEL_HELPER); }

  // A random model from tests/fixtures/parallel/CONFIG in dir_/NAME; returns the directory.
  std::string init_model(const std::string& config, const std::string& name) {
    const std::string out = dir_ + "/" + name;
    RunResult init = run_command(CPUFT_BINARY " init-model --config " CPUFT_FIXTURES "/parallel/" + config +
                                 " --tokenizer " CPUFT_FIXTURES "/text --output_dir " + out);
    EXPECT_EQ(init.status, 0) << init.output;
    return out;
  }

  // Trains on `ranks` processes into dir_/NAME with `args` after the common flags; returns the directory.
  std::string train(int ranks, const std::string& name, const std::string& args) {
    const std::string out = dir_ + "/" + name;
    RunResult r = run_command(train_command(ranks, common_train_flags(model_) + " --output_dir " + out + " " + args));
    EXPECT_EQ(r.status, 0) << name << ":\n" << r.output;
    std::printf("[ %s: %d rank(s), %.1f s ]\n", name.c_str(), ranks, r.seconds);
    return out;
  }

  std::string dir_, model_;
};

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return in.good() ? nlohmann::json::parse(in) : nlohmann::json();
}

inline double rel_diff(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(b), 1e-30); }

// The largest differences between two runs' trainer_state.json: relative for grad_norm and train_loss
// (full precision), absolute for the per-step loss (transformers 4 rounded it to 4 decimals; 5 does not).
struct LogDiff {
  double grad_norm_rel = 0, step_loss_abs = 0, train_loss_rel = 0;
};

inline LogDiff compare_logs(const std::string& run, const std::string& reference) {
  LogDiff d;
  const nlohmann::json a = read_json(run + "/trainer_state.json")["log_history"];
  const nlohmann::json b = read_json(reference + "/trainer_state.json")["log_history"];
  EXPECT_EQ(a.size(), b.size()) << run << " vs " << reference;
  bool saw_train_loss = false;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    EXPECT_EQ(a[i].value("step", -1), b[i].value("step", -2)) << "log_history[" << i << "] of " << run;
    EXPECT_EQ(a[i].value("epoch", -1.0), b[i].value("epoch", -2.0)) << "log_history[" << i << "] of " << run;
    if (b[i].contains("loss")) {
      EXPECT_EQ(a[i].value("learning_rate", -1.0), b[i].value("learning_rate", -2.0)) << "log_history[" << i << "]";
      d.grad_norm_rel = std::max(d.grad_norm_rel, rel_diff(a[i].value("grad_norm", 0.0), b[i]["grad_norm"]));
      d.step_loss_abs = std::max(d.step_loss_abs, std::fabs(a[i].value("loss", 0.0) - b[i]["loss"].get<double>()));
    }
    if (b[i].contains("train_loss")) {
      saw_train_loss = true;
      d.train_loss_rel = rel_diff(a[i].value("train_loss", 0.0), b[i]["train_loss"]);
    }
  }
  EXPECT_TRUE(saw_train_loss) << reference << " has no final train_loss entry";
  return d;
}

// Tensors of the tiny 2-layer BERT whose exact gradient is zero: a key bias adds the same q.b to every
// score of a softmax row, and the QA head's bias (and the last LayerNorm's bias, which reaches the
// logits only through the head's weights) shifts all start or end logits alike. Their gradients are
// pure rounding noise (1e-13 to 1e-8) that differs with the summation order, and Adam scales any noise
// up to a step of about the learning rate, so their values after training are not comparable.
inline bool gradient_is_exactly_zero(const std::string& name) {
  return name == "bert.encoder.layer.0.attention.self.key.bias" ||
         name == "bert.encoder.layer.1.attention.self.key.bias" ||
         name == "bert.encoder.layer.1.output.LayerNorm.bias" || name == "qa_outputs.bias";
}

// The largest difference between two model.safetensors files, over the tensors with a real gradient,
// relative to the largest weight magnitude of the reference model. (Per tensor, or per element, the
// ratio is dominated by biases that start at zero and by elements whose gradient nearly cancels, where
// Adam's normalisation turns summation-order rounding into differences of up to a learning rate.)
inline double weights_rel_diff(const std::string& run, const std::string& reference) {
  cpuft::SafetensorsReader a(run + "/model.safetensors"), b(reference + "/model.safetensors");
  EXPECT_EQ(a.tensors().size(), b.tensors().size());
  double diff = 0, scale = 0;
  for (const cpuft::StTensorInfo& t : b.tensors()) {
    if (a.find(t.name) == nullptr) {
      ADD_FAILURE() << t.name << " missing from " << run;
      continue;
    }
    std::vector<float> x = a.read_f32(t.name), y = b.read_f32(t.name);
    if (x.size() != y.size()) {
      ADD_FAILURE() << t.name << ": " << x.size() << " vs " << y.size() << " elements";
      continue;
    }
    for (size_t i = 0; i < y.size(); ++i) {
      scale = std::max(scale, std::fabs(static_cast<double>(y[i])));
      if (!gradient_is_exactly_zero(t.name)) diff = std::max(diff, std::fabs(static_cast<double>(x[i]) - y[i]));
    }
  }
  return scale > 0 ? diff / scale : diff;
}

// Checks run against reference: weights and grad norms / train_loss within rel_tol, step losses
// within one unit of their 4th decimal (plus rel_tol), and prints what was reached.
inline void expect_same_training(const std::string& run, const std::string& reference, double rel_tol) {
  const LogDiff d = compare_logs(run, reference);
  const double w = weights_rel_diff(run, reference);
  std::printf("[ %s vs %s: weights %.2e, grad_norm %.2e, train_loss %.2e (relative); step loss %.1e (abs) ]\n",
              run.substr(run.rfind('/') + 1).c_str(), reference.substr(reference.rfind('/') + 1).c_str(), w,
              d.grad_norm_rel, d.train_loss_rel, d.step_loss_abs);
  EXPECT_LE(w, rel_tol) << run << " vs " << reference;
  EXPECT_LE(d.grad_norm_rel, rel_tol) << run << " vs " << reference;
  EXPECT_LE(d.train_loss_rel, rel_tol) << run << " vs " << reference;
  EXPECT_LE(d.step_loss_abs, 1e-4 + 5 * rel_tol) << run << " vs " << reference;  // losses are about 4
}

}  // namespace cpuft_test
