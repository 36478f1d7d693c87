// The plot `cpuft train` leaves in its output directory for people who do not run TensorBoard
// (training_curves.svg): the training loss (left axis) and one evaluation metric (right axis) against
// the optimizer step, drawn from trainer_state.json's log_history as a small self-contained SVG.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace cpuft {

// The SVG text. Points come from the entries of `log_history` that hold "loss" (the training loss)
// and those that hold `metric_key` (e.g. "eval_f1"), each at its "step"; entries without a step and
// values that are not finite numbers are left out. With neither kind of point the plot says so.
std::string training_plot_svg(const nlohmann::json& log_history, const std::string& metric_key);

}  // namespace cpuft
