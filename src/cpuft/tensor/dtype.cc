#include "cpuft/tensor/dtype.h"

#include "cpuft/util/error.h"

namespace cpuft {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::kF32: return 4;
    case DType::kBf16: return 2;
    case DType::kI32: return 4;
    case DType::kI64: return 8;
  }
  fail_internal("dtype_size: unknown dtype ", static_cast<int>(t));
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kF32: return "f32";
    case DType::kBf16: return "bf16";
    case DType::kI32: return "i32";
    case DType::kI64: return "i64";
  }
  return "unknown";
}

}  // namespace cpuft
