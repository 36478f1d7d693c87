// What `cpuft bench` measures a step against: the matrix FLOPs of a step, counted from the model's
// shapes, and the matrix-product peak oneDNN reaches on this machine. Their ratio is the MFU it reports.
// (The Trainer's total_flos is a different count: transformers' 6 x tokens x non-embedding parameters.)
#pragma once

#include "cpuft/io/hf_config.h"

namespace cpuft {

// Matrix FLOPs of one training step (forward + backward = 3x forward) or of one forward pass: the
// weight products of every layer and the QA head, and attention's QK^T and PV.
double step_flops(const ModelConfig& config, int batch, int seq, bool train);

// GFLOP/s of oneDNN's matrix product in this dtype on 2048 x 2048 x 2048 (median of four runs after
// one warm-up), on the threads this process has.
double gemm_peak_gflops(bool bf16);

}  // namespace cpuft
