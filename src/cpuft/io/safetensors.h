// safetensors read (mmap, every offset and size bounds-checked) and write (HF layout: 8-byte
// aligned header, "__metadata__": {"format": "pt"}, sorted as the reference writer sorts).
// Format and what cpuft matches: docs/parity.md, Files.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cpuft {

enum class StDtype { kF32, kBf16, kF16, kI64, kI32, kF64, kU8, kI8, kI16, kU16, kU32, kU64, kBool, kOther };

struct StTensorInfo {
  std::string name;
  StDtype dtype = StDtype::kF32;
  std::string dtype_name;       // as written in the header
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // offsets into the data buffer
  int64_t numel() const;
};

// A safetensors file opened read-only with mmap. Throws cpuft::Error on any inconsistency:
// missing or truncated file, header size over 100 MB or past the end of the file, header not a
// JSON object, duplicate keys, __metadata__ not string -> string, unknown dtype, size not
// matching shape x dtype, offsets out of range, overlapping or leaving holes. tensors() lists
// the tensors in the order of their data.
class SafetensorsReader {
 public:
  explicit SafetensorsReader(const std::string& path);
  ~SafetensorsReader();
  SafetensorsReader(const SafetensorsReader&) = delete;
  SafetensorsReader& operator=(const SafetensorsReader&) = delete;

  const std::string& path() const { return path_; }
  const std::vector<StTensorInfo>& tensors() const { return tensors_; }
  const StTensorInfo* find(const std::string& name) const;  // nullptr if absent
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  // Copies the tensor into out as float32 (F32, BF16, F16 and F64 are converted; others error). The
  // tensor's file pages then leave the process's memory (a later read maps them again from the file).
  void read_f32(const StTensorInfo& t, float* out) const;
  std::vector<float> read_f32(const std::string& name) const;
  // Raw bytes of a tensor (for integer tensors).
  const uint8_t* data(const StTensorInfo& t) const;

 private:
  std::string path_;
  std::vector<StTensorInfo> tensors_;  // sorted by data offset
  std::map<std::string, size_t> index_;  // name -> position in tensors_
  std::map<std::string, std::string> metadata_;
  const uint8_t* base_ = nullptr;  // start of the data buffer inside the mapping
  void* map_ = nullptr;
  size_t map_size_ = 0;
};

// A tensor to write: F32 from `f32`, or BF16 from `bf16`, or I64 from `i64`, or I8 from `i8`
// (exactly one set).
struct StTensorOut {
  std::string name;
  std::vector<int64_t> shape;
  const float* f32 = nullptr;
  const uint16_t* bf16 = nullptr;
  const int64_t* i64 = nullptr;
  const int8_t* i8 = nullptr;
};

// Writes a safetensors file atomically (temporary name, fsync, rename), streamed from the tensors (no
// copy of the file is held in memory), byte for byte as the reference writer (safetensors' serialize)
// does: tensors sorted by dtype (I64, F32, BF16, I8) then name, compact header, "__metadata__" first
// (omitted when `metadata` is empty; its entries in key order), header padded with spaces to a
// multiple of 8. Throws cpuft::Error for an empty or duplicate name, "__metadata__" as a name, a
// negative dimension or not exactly one data pointer.
void write_safetensors(const std::string& path, const std::vector<StTensorOut>& tensors,
                       const std::map<std::string, std::string>& metadata = {{"format", "pt"}});

}  // namespace cpuft
