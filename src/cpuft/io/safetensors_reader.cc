// safetensors reader: maps the file, validates the whole header against the data buffer once, and
// then hands out tensors without further checks (docs/parity.md, Files).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <vector>

#include <nlohmann/json.hpp>

#include "cpuft/io/safetensors.h"
#include "cpuft/io/st_dtype.h"
#include "cpuft/tensor/bf16.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

constexpr uint64_t kMaxHeader = 100000000;  // the limit of the reference reader

using json = nlohmann::json;

// A tensor name as messages show it: quoted, and cut when long (names come from the file).
std::string quoted(const std::string& name) { return "'" + text_preview(name, 80) + "'"; }

uint64_t offset_value(const std::string& path, const std::string& name, const json& v) {
  if (!v.is_number_unsigned()) {
    fail(path, ": tensor ", quoted(name), ": data_offsets holds ", json_preview(v), "; expected non-negative integers");
  }
  return v.get<uint64_t>();
}

StTensorInfo parse_tensor(const std::string& path, const std::string& name, const json& entry) {
  if (!entry.is_object())
    fail(path, ": tensor ", quoted(name), ": entry is ", json_preview(entry), "; expected an object");
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    if (!entry.contains(field)) fail(path, ": tensor ", quoted(name), ": missing \"", field, "\"");
  }
  StTensorInfo t;
  t.name = name;
  const json& dtype = entry["dtype"];
  if (!dtype.is_string())
    fail(path, ": tensor ", quoted(name), ": dtype is ", json_preview(dtype), "; expected a string");
  t.dtype_name = dtype.get<std::string>();
  StDtypeInfo info;
  if (!lookup_st_dtype(t.dtype_name, &info)) {
    fail(path, ": tensor ", quoted(name), ": dtype ", json_preview(t.dtype_name),
         " is not a safetensors dtype; expected one of ", st_dtype_list());
  }
  t.dtype = info.dtype;

  const json& shape = entry["shape"];
  if (!shape.is_array())
    fail(path, ": tensor ", quoted(name), ": shape is ", json_preview(shape), "; expected an array");
  uint64_t numel = 1;
  bool overflow = false;
  for (const json& d : shape) {
    if (!d.is_number_unsigned() || d.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      fail(path, ": tensor ", quoted(name), ": shape ", json_preview(shape), " holds ", json_preview(d),
           "; expected non-negative integers");
    }
    t.shape.push_back(d.get<int64_t>());
    overflow |= __builtin_mul_overflow(numel, d.get<uint64_t>(), &numel);
  }

  const json& offsets = entry["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2) {
    fail(path, ": tensor ", quoted(name), ": data_offsets is ", json_preview(offsets), "; expected [BEGIN, END]");
  }
  t.begin = offset_value(path, name, offsets[0]);
  t.end = offset_value(path, name, offsets[1]);
  if (t.end < t.begin) {
    fail(path, ": tensor ", quoted(name), ": data_offsets [", t.begin, ",", t.end, "] end before they begin");
  }
  uint64_t bits = 0;
  overflow |= __builtin_mul_overflow(numel, static_cast<uint64_t>(info.bits), &bits);
  if (overflow || bits % 8 != 0 || bits / 8 != t.end - t.begin) {
    fail(path, ": tensor ", quoted(name), ": data_offsets [", t.begin, ",", t.end, "] hold ", t.end - t.begin,
         " bytes; shape ", json_preview(shape), " of ", t.dtype_name, " needs ",
         overflow ? std::string("more than 2^64 bits") : str_cat(bits / 8.0, " bytes"));
  }
  return t;
}

// Sorted by offset, the tensors must tile [0, data_size) exactly (zero-size tensors anywhere).
void check_coverage(const std::string& path, std::vector<StTensorInfo>& tensors, uint64_t data_size) {
  std::stable_sort(tensors.begin(), tensors.end(), [](const StTensorInfo& a, const StTensorInfo& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t covered = 0;
  const StTensorInfo* previous = nullptr;
  for (const StTensorInfo& t : tensors) {
    if (t.end > data_size) {
      fail(path, ": tensor ", quoted(t.name), ": data_offsets [", t.begin, ",", t.end, "] run past the data buffer of ",
           data_size, " bytes");
    }
    if (t.begin < covered) {
      fail(path, ": tensor ", quoted(t.name), ": data_offsets [", t.begin, ",", t.end, "] overlap previous tensor ",
           quoted(previous->name), " ending at ", covered);
    }
    if (t.begin > covered) {
      fail(path, ": tensor ", quoted(t.name), ": data_offsets [", t.begin, ",", t.end, "] leave a hole of ",
           t.begin - covered, " bytes after ",
           previous ? str_cat("previous tensor ", quoted(previous->name), " ending at ", covered)
                    : std::string("the start of the data buffer"));
    }
    covered = t.end;
    previous = &t;
  }
  if (covered != data_size) {
    fail(path, ": data buffer is ", data_size, " bytes but the tensors cover only ", covered,
         " (trailing bytes, or a truncated header)");
  }
}

float f16_to_f32(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // zero or subnormal, exact
  } else if (exponent == 31) {
    uint32_t u = 0x7f800000u | (mantissa << 13);
    std::memcpy(&magnitude, &u, sizeof u);
  } else {
    uint32_t u = ((exponent + 112) << 23) | (mantissa << 13);
    std::memcpy(&magnitude, &u, sizeof u);
  }
  uint32_t bits;
  std::memcpy(&bits, &magnitude, sizeof bits);
  bits |= sign;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace

int64_t StTensorInfo::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

SafetensorsReader::SafetensorsReader(const std::string& path) : path_(path) {
  // O_NONBLOCK: a FIFO must not block the open; the type check refuses it.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) require_regular_file(path);  // "missing" or "a dangling symbolic link"
    fail(path, ": cannot open: ", std::strerror(err));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    require_regular_file(path);
    fail(path, ": not a regular file");
  }
  map_size_ = static_cast<size_t>(st.st_size);
  if (map_size_ < 8) {
    ::close(fd);
    fail(path, ": file is ", map_size_, " bytes; a safetensors file starts with an 8-byte header length");
  }
  map_ = ::mmap(nullptr, map_size_, PROT_READ, MAP_PRIVATE, fd, 0);
  int map_errno = errno;
  ::close(fd);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    fail(path, ": cannot map: ", std::strerror(map_errno));
  }
  try {
    const uint8_t* bytes = static_cast<const uint8_t*>(map_);
    uint64_t header_size = 0;
    for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | bytes[i];  // little-endian
    if (header_size > kMaxHeader) {
      fail(path, ": header length ", header_size, " exceeds the limit of ", kMaxHeader, " bytes");
    }
    if (header_size > map_size_ - 8) {
      fail(path, ": header length ", header_size, " runs past the end of the ", map_size_, "-byte file");
    }
    const char* header = reinterpret_cast<const char*>(bytes + 8);
    if (header_size == 0 || header[0] != '{') {
      fail(path, ": header must be a JSON object starting with '{'; found ",
           header_size == 0 ? std::string("an empty header") : str_cat("byte 0x", std::hex, int(bytes[8])));
    }
    JsonReadOptions strict;
    strict.reject_duplicate_keys = true;  // nlohmann would keep the last value silently
    json root = parse_json(std::string_view(header, header_size), path + ": header", strict);
    for (auto it = root.begin(); it != root.end(); ++it) {
      if (it.key() == "__metadata__") {
        if (!it->is_object())
          fail(path, ": __metadata__ is ", json_preview(*it), "; expected a string-to-string map");
        for (auto m = it->begin(); m != it->end(); ++m) {
          if (!m->is_string()) {
            fail(path, ": __metadata__.", text_preview(m.key()), " is ", json_preview(*m), "; expected a string");
          }
          metadata_[m.key()] = m->get<std::string>();
        }
        continue;
      }
      tensors_.push_back(parse_tensor(path, it.key(), *it));
    }
    base_ = bytes + 8 + header_size;
    check_coverage(path, tensors_, map_size_ - 8 - header_size);
    for (size_t i = 0; i < tensors_.size(); ++i) index_[tensors_[i].name] = i;
  } catch (...) {
    ::munmap(map_, map_size_);
    map_ = nullptr;
    throw;
  }
}

SafetensorsReader::~SafetensorsReader() {
  if (map_) ::munmap(map_, map_size_);
}

const StTensorInfo* SafetensorsReader::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

const uint8_t* SafetensorsReader::data(const StTensorInfo& t) const { return base_ + t.begin; }

void SafetensorsReader::read_f32(const StTensorInfo& t, float* out) const {
  const uint8_t* src = data(t);
  const int64_t n = t.numel();
  switch (t.dtype) {
    case StDtype::kF32:
      if (n > 0) std::memcpy(out, src, static_cast<size_t>(n) * 4);  // `out` may be null when empty
      break;
    case StDtype::kBf16:
    case StDtype::kF16:
      for (int64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, src + 2 * i, 2);
        out[i] = t.dtype == StDtype::kBf16 ? bf16_to_f32(h) : f16_to_f32(h);
      }
      break;
    case StDtype::kF64:
      for (int64_t i = 0; i < n; ++i) {
        double d;
        std::memcpy(&d, src + 8 * i, 8);
        out[i] = static_cast<float>(d);
      }
      break;
    default:
      fail(path_, ": tensor ", quoted(t.name), " has dtype ", t.dtype_name,
           "; expected a floating-point dtype (F32, BF16, F16 or F64)");
  }
  // The copy is made: the tensor's file pages leave this process's memory (the mapping is private and
  // read-only, so a later read maps them again from the file), and a model loads in about its own size
  // instead of twice it.
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(src) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(src) + t.end - t.begin) / page * page;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

std::vector<float> SafetensorsReader::read_f32(const std::string& name) const {
  const StTensorInfo* t = find(name);
  if (!t) fail(path_, ": no tensor named ", quoted(name));
  std::vector<float> out(static_cast<size_t>(t->numel()));
  read_f32(*t, out.data());
  return out;
}

}  // namespace cpuft
