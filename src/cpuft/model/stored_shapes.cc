#include "cpuft/model/stored_shapes.h"

#include "cpuft/util/error.h"
#include "cpuft/util/shape_text.h"

namespace cpuft {

std::vector<std::string> check_stored_shapes(const ParamTable& table, const WeightFiles& stored,
                                             const std::string& dir, const std::string& config_path,
                                             const std::function<bool(const std::string& name)>& optional) {
  std::vector<std::string> missing;
  for (const ParamEntry& e : table.entries()) {
    const WeightTensor* t = stored.find(e.name);
    if (!t) {
      if (optional && optional(e.name)) {
        missing.push_back(e.name);
        continue;
      }
      fail(stored.files().empty() ? dir : stored.files().front(), ": tensor ", e.name, " is missing; expected shape ",
           shape_text(e.shape), " (", config_path, ")");
    }
    if (t->info->shape != e.shape)
      fail(t->reader->path(), ": tensor ", t->info->name, " has shape ", shape_text(t->info->shape), ", expected ",
           shape_text(e.shape), " as ", config_path, " says");
  }
  return missing;
}

}  // namespace cpuft
