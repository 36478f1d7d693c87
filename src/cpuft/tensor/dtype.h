// Element types of the arrays the products and files exchange (kernels/gemm.h, io/safetensors).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cpuft {

enum class DType : uint8_t { f32, bf16, i32, i64 };

// Bytes per element: 4, 2, 4, 8.
size_t dtype_size(DType t);
// "f32", "bf16", "i32", "i64".
const char* dtype_name(DType t);

// The dtype that stores C++ type T: float -> f32, uint16_t -> bf16 (raw bits), int32_t -> i32,
// int64_t -> i64. Any other T does not compile.
template <typename T>
struct dtype_of;
template <> struct dtype_of<float> { static constexpr DType value = DType::f32; };
template <> struct dtype_of<uint16_t> { static constexpr DType value = DType::bf16; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::i32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::i64; };

}  // namespace cpuft
