// What `cpuft bench` measures a step against: the matrix FLOPs of a step, counted from the model's
// shapes, and the matrix-product peak oneDNN reaches on this machine. Their ratio is the MFU it reports.
// (The Trainer's total_flos is a different count: transformers' 6 x tokens x non-embedding parameters.)
#pragma once

#include <cstdint>
#include <functional>

#include "cpuft/io/hf_config.h"

namespace cpuft {

// Matrix FLOPs of one training step (forward + backward = 3x forward) or of one forward pass: the
// weight products of every layer and the QA head, and attention's QK^T and PV.
double step_flops(const ModelConfig& config, int batch, int seq, bool train);

// How long a rate is timed: untimed runs for warmup_s (at least one), then timed runs for at least
// timed_s and min_runs, at most max_runs (at least one). On a shared machine single runs of the peak
// product move by 10-15% (a 2-core Zen 4 VM: 370-455 GFLOP/s within a second), and the first runs of a
// process there sometimes went at half the rate for up to half a second: the median of four runs after
// one warm-up moved MFU by up to 11 points between runs, once to 166% (docs/performance.md, "A peak that
// holds still").
struct RateTiming {
  double warmup_s = 0.5;
  double timed_s = 1.0;
  int min_runs = 5;
  int max_runs = 200;
};

// The median duration of run() over the timed runs of `timing`.
double median_run_seconds(const std::function<void()>& run, const RateTiming& timing = {});

// GFLOP/s of oneDNN's matrix product in this dtype on 2048 x 2048 x 2048 (the median run under
// RateTiming's defaults), on the threads this process has, with operands of pseudo-random values in [-1, 1): a
// product of zeros runs faster than one of real values where the chip's power depends on the data (AMX:
// about 2.0 against 1.7 TFLOP/s, docs/performance.md), and the model's operands are real values. The
// weight is read as the model's products read theirs: in bf16, from oneDNN's blocked layout where bf16
// products are native (faster than a row-major weight, which the product repacks: on Zen 4 443-453
// against 428-432 GFLOP/s), so that MFU is read against the fastest of the products the model runs.
double gemm_peak_gflops(bool bf16);

// The peak that MFU divides by, for a step that ran at `achieved` GFLOP/s: measure() (gemm_peak_gflops),
// timed again, up to `tries` readings in all, while the highest reading is below the step's own rate,
// which the products' peak cannot be. A slow spell longer than RateTiming's window still read the peak at
// half the rate (about 230 against 440 GFLOP/s on a Zen 4 VM, MFU 164%: docs/performance.md, "Four levers on
// attention weighed"). Gives the highest reading; below_step when even that is below the step's rate.
struct PeakReading {
  double gflops = 0;
  int readings = 0;
  bool below_step = false;
};
PeakReading peak_for_step(double achieved, const std::function<double()>& measure, int tries = 3);

// The peak's operand: n values in [-1, 1) from seed, as f32 or (bf16) as n bf16 words in x's storage.
void fill_peak_operand(float* x, int64_t n, bool bf16, uint32_t seed);

}  // namespace cpuft
