// Element types of the arrays the products and files exchange (kernels/gemm.h, io/safetensors).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cpuft {

enum class DType : uint8_t { kF32, kBf16, kI32, kI64 };

// Bytes per element: 4, 2, 4, 8.
size_t dtype_size(DType t);
// "f32", "bf16", "i32", "i64".
const char* dtype_name(DType t);

}  // namespace cpuft
