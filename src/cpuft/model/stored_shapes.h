// Loading a model directory checks what the weight files hold before the model is allocated: a config
// that disagrees with its weights costs an error line, not gigabytes (model/pretrained.cc,
// model/int8_model.cc).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cpuft/io/model_dir.h"
#include "cpuft/model/param_table.h"

namespace cpuft {

// Every tensor of `table` must be in `stored` with the shape config.json implies; errors name the
// file, the tensor and `config_path`. A tensor for which `optional` says true may be missing: the names
// of those missing are returned.
std::vector<std::string> check_stored_shapes(const ParamTable& table, const WeightFiles& stored,
                                             const std::string& dir, const std::string& config_path,
                                             const std::function<bool(const std::string& name)>& optional);

}  // namespace cpuft
