// safetensors writer matching the reference serializer (docs/parity.md, Files), so that a model
// saved by cpuft is byte-identical to the same tensors saved by transformers.
#include <algorithm>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cpuft/io/safetensors.h"
#include "cpuft/io/st_dtype.h"
#include "cpuft/util/atomic_file.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

struct Planned {
  const StTensorOut* tensor;
  StDtype dtype;
  int rank;
  uint64_t bytes;
  const void* data;
};

Planned plan(const std::string& path, const StTensorOut& t) {
  if (t.name.empty() || t.name == "__metadata__") {
    fail(path, ": cannot write a tensor named '", t.name, "'");
  }
  int set = (t.f32 != nullptr) + (t.bf16 != nullptr) + (t.i64 != nullptr) + (t.i8 != nullptr);
  if (set != 1) fail(path, ": tensor '", t.name, "': ", set, " data pointers set; expected exactly one");
  Planned p{&t, StDtype::kF32, 0, 0, t.f32};
  int item = 4;
  if (t.bf16) {
    p.dtype = StDtype::kBf16, p.data = t.bf16, item = 2;
  } else if (t.i64) {
    p.dtype = StDtype::kI64, p.data = t.i64, item = 8;
  } else if (t.i8) {
    p.dtype = StDtype::kI8, p.data = t.i8, item = 1;
  }
  StDtypeInfo info;
  lookup_st_dtype(st_dtype_name(p.dtype), &info);
  p.rank = info.rank;
  uint64_t numel = 1;
  for (int64_t d : t.shape) {
    if (d < 0) fail(path, ": tensor '", t.name, "': dimension ", d, "; expected >= 0");
    numel *= static_cast<uint64_t>(d);
  }
  p.bytes = numel * item;
  return p;
}

// A JSON string as serde_json writes it (same escapes as nlohmann without ASCII forcing).
std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

}  // namespace

void write_safetensors(const std::string& path, const std::vector<StTensorOut>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  std::vector<Planned> order;
  std::set<std::string> names;
  for (const StTensorOut& t : tensors) {
    if (!names.insert(t.name).second) fail(path, ": tensor '", t.name, "' given twice");
    order.push_back(plan(path, t));
  }
  std::sort(order.begin(), order.end(), [](const Planned& a, const Planned& b) {
    return a.rank != b.rank ? a.rank > b.rank : a.tensor->name < b.tensor->name;
  });

  std::string header = "{";
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [key, value] : metadata) {
      header += (first ? "" : ",") + quoted(key) + ":" + quoted(value);
      first = false;
    }
    header += "},";
  }
  uint64_t offset = 0;
  for (const Planned& p : order) {
    header += quoted(p.tensor->name) + ":{\"dtype\":\"" + st_dtype_name(p.dtype) + "\",\"shape\":[";
    for (size_t i = 0; i < p.tensor->shape.size(); ++i) {
      header += (i ? "," : "") + std::to_string(p.tensor->shape[i]);
    }
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + p.bytes) + "]},";
    offset += p.bytes;
  }
  if (header.back() == ',') header.pop_back();
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');

  // Streamed from the tensors themselves: no copy of the file is held in memory (an optimizer state
  // is twice the model's size, written while training holds everything else).
  AtomicFile file(path);
  char size[8];
  const uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) size[i] = static_cast<char>((n >> (8 * i)) & 0xff);  // little-endian
  file.append(std::string_view(size, sizeof size));
  file.append(header);
  for (const Planned& p : order)  // this engine only runs on little-endian x86
    if (p.bytes) file.append(std::string_view(static_cast<const char*>(p.data), p.bytes));
  file.commit();
}

}  // namespace cpuft
