#include "cpuft/train/lr_schedule.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpuft/util/error.h"
#include "cpuft/util/py_json.h"

namespace {

// Learning rates before each optimizer step k = 0..T, printed with repr() from transformers 5.24
// get_scheduler + torch 2.15 LambdaLR (exact: same double operations in the same order).
std::vector<std::string> rates(cpuft::LrSchedulerType type, double base, int64_t w, int64_t t) {
  cpuft::LrSchedule s(type, base, w, t);
  std::vector<std::string> out;
  for (int64_t k = 0; k <= t; ++k) out.push_back(cpuft::py_float_repr(s.lr(k)));
  return out;
}

using V = std::vector<std::string>;
using cpuft::LrSchedulerType;

}  // namespace

TEST(LrSchedule, LinearNoWarmupEndsAtBaseOverT) {
  EXPECT_EQ(rates(LrSchedulerType::kLinear, 5e-5, 0, 10),
            (V{"5e-05", "4.5e-05", "4e-05", "3.5e-05", "3e-05", "2.5e-05", "2e-05", "1.5e-05", "1e-05", "5e-06", "0.0"}));
}

TEST(LrSchedule, LinearWithWarmup) {
  EXPECT_EQ(rates(LrSchedulerType::kLinear, 5e-5, 3, 10),
            (V{"0.0", "1.6666666666666667e-05", "3.3333333333333335e-05", "5e-05", "4.2857142857142856e-05",
               "3.571428571428572e-05", "2.857142857142857e-05", "2.1428571428571428e-05", "1.4285714285714285e-05",
               "7.142857142857143e-06", "0.0"}));
}

TEST(LrSchedule, LinearWarmupEqualsTotal) {
  EXPECT_EQ(rates(LrSchedulerType::kLinear, 5e-5, 10, 10),
            (V{"0.0", "5e-06", "1e-05", "1.5e-05", "2e-05", "2.5e-05", "3e-05", "3.5e-05", "4e-05", "4.5e-05", "0.0"}));
}

TEST(LrSchedule, SingleStep) {
  EXPECT_EQ(rates(LrSchedulerType::kLinear, 1e-3, 0, 1), (V{"0.001", "0.0"}));
  EXPECT_EQ(rates(LrSchedulerType::kCosine, 3e-5, 0, 1), (V{"3e-05", "0.0"}));
}

TEST(LrSchedule, CosineHalfCycle) {
  EXPECT_EQ(rates(LrSchedulerType::kCosine, 5e-5, 2, 9),
            (V{"0.0", "2.5e-05", "5e-05", "4.752422169756048e-05", "4.058724504646834e-05", "3.056302334890786e-05",
               "1.9436976651092144e-05", "9.412754953531663e-06", "2.475778302439524e-06", "0.0"}));
}

TEST(LrSchedule, ConstantKinds) {
  EXPECT_EQ(rates(LrSchedulerType::kConstantWithWarmup, 5e-5, 4, 8),
            (V{"0.0", "1.25e-05", "2.5e-05", "3.7500000000000003e-05", "5e-05", "5e-05", "5e-05", "5e-05", "5e-05"}));
  EXPECT_EQ(rates(LrSchedulerType::kConstant, 5e-5, 4, 8), V(9, "5e-05"));
}

TEST(LrSchedule, PastTheEndStaysAtZero) {
  cpuft::LrSchedule s(LrSchedulerType::kLinear, 5e-5, 0, 4);
  EXPECT_EQ(s.lr(7), 0.0);
}

TEST(LrSchedule, RejectsEmptyTraining) {
  EXPECT_THROW(cpuft::LrSchedule(LrSchedulerType::kLinear, 5e-5, 0, 0), cpuft::Error);
  EXPECT_THROW(cpuft::LrSchedule(LrSchedulerType::kLinear, 5e-5, -1, 3), cpuft::Error);
}
