// `cpuft train`: run_qa.py's main() in C++ (evaluation through infer/inference.h).
//
// The training loop follows the HF Trainer step for step (docs/parity.md, Training): per optimizer
// step, gradient_accumulation_steps micro-batches (each loss divided by the accumulation count),
// gradients summed over ranks in overlapped buckets, clipping by global norm, AdamW, the learning-rate
// schedule, a log record every logging_steps, an evaluation every eval_steps or epoch (through the
// same infer/ driver, eval mode, on every rank; the best model tracked as train/best_model.h says)
// and a checkpoint every save_steps, in the Trainer's order: log, evaluate, save. Evaluations read
// the weights only, and the data order and dropout masks are functions of the seed and the step, so a
// run trains to the same weights with or without them. Log entries also go to TensorBoard event files
// (report/tensorboard.h, rank 0) and, at the end, into training_curves.svg. Each micro-batch is
// one GLOBAL batch of per_device_train_batch_size x world_size features split across the ranks
// (data/sampler.h), and every rank scales its loss by its share of the global batch, so N ranks
// with batch b compute the gradients of 1 rank with batch N*b.
#pragma once

#include "cpuft/flags/train_args.h"
#include "cpuft/parallel/communicator.h"

namespace cpuft {

// Runs train (+ evaluation when --do_eval) as `args` says; returns the process exit code.
int run_train(const TrainArgs& args, Communicator& comm);

}  // namespace cpuft
