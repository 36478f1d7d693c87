#include "cpuft/flags/train_args.h"

#include <algorithm>

namespace cpuft {

const char* command_name(Command c) {
  switch (c) {
    case Command::kTrain: return "train";
    case Command::kEvaluate: return "evaluate";
    case Command::kPredict: return "predict";
  }
  return "?";
}

const char* lr_scheduler_name(LrSchedulerType t) {
  switch (t) {
    case LrSchedulerType::kLinear: return "linear";
    case LrSchedulerType::kConstant: return "constant";
    case LrSchedulerType::kConstantWithWarmup: return "constant_with_warmup";
    case LrSchedulerType::kCosine: return "cosine";
  }
  return "?";
}

const char* save_strategy_name(SaveStrategy s) {
  switch (s) {
    case SaveStrategy::kSteps: return "steps";
    case SaveStrategy::kEpoch: return "epoch";
    case SaveStrategy::kNo: return "no";
  }
  return "?";
}

const char* eval_strategy_name(EvalStrategy s) {
  switch (s) {
    case EvalStrategy::kNo: return "no";
    case EvalStrategy::kSteps: return "steps";
    case EvalStrategy::kEpoch: return "epoch";
  }
  return "?";
}

bool TrainArgs::reports_to_tensorboard() const {
  return std::any_of(report_to.begin(), report_to.end(),
                     [](const std::string& r) { return r == "tensorboard" || r == "all"; });
}

}  // namespace cpuft
