#include "cpuft/tensor/dtype.h"

#include "cpuft/util/error.h"

namespace cpuft {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::bf16: return 2;
    case DType::i32: return 4;
    case DType::i64: return 8;
  }
  fail_internal("dtype_size: unknown dtype ", static_cast<int>(t));
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::bf16: return "bf16";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
  }
  return "unknown";
}

}  // namespace cpuft
