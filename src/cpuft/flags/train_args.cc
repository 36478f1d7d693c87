#include "cpuft/flags/train_args.h"

#include <algorithm>

namespace cpuft {

const char* command_name(Command c) {
  switch (c) {
    case Command::Train: return "train";
    case Command::Evaluate: return "evaluate";
    case Command::Predict: return "predict";
  }
  return "?";
}

const char* lr_scheduler_name(LrSchedulerType t) {
  switch (t) {
    case LrSchedulerType::Linear: return "linear";
    case LrSchedulerType::Constant: return "constant";
    case LrSchedulerType::ConstantWithWarmup: return "constant_with_warmup";
    case LrSchedulerType::Cosine: return "cosine";
  }
  return "?";
}

const char* save_strategy_name(SaveStrategy s) {
  switch (s) {
    case SaveStrategy::Steps: return "steps";
    case SaveStrategy::Epoch: return "epoch";
    case SaveStrategy::No: return "no";
  }
  return "?";
}

const char* eval_strategy_name(EvalStrategy s) {
  switch (s) {
    case EvalStrategy::No: return "no";
    case EvalStrategy::Steps: return "steps";
    case EvalStrategy::Epoch: return "epoch";
  }
  return "?";
}

bool TrainArgs::reports_to_tensorboard() const {
  return std::any_of(report_to.begin(), report_to.end(),
                     [](const std::string& r) { return r == "tensorboard" || r == "all"; });
}

}  // namespace cpuft
