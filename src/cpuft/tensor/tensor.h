// Tensor: a dtype, a shape and a pointer to 64-byte aligned storage, either owned (allocated by
// the constructor, freed by the destructor) or borrowed (a view of someone else's storage).
// Deliberately small: no strides, no broadcasting, no autograd. Products with strides go through
// kernels/gemm.h with explicit leading dimensions instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

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

// Storage alignment of owned tensors, in bytes (one cache line; enough for any AVX-512 load).
constexpr size_t kTensorAlignment = 64;

// Allocates `bytes` bytes aligned to kTensorAlignment (zero bytes gives a valid unique pointer);
// throws cpuft::Error when memory is exhausted. Free with aligned_free.
void* aligned_alloc_bytes(size_t bytes);
void aligned_free(void* p);

// Move-only. An owned tensor frees its storage on destruction; a view never does, and must not
// outlive the storage it points into.
class Tensor {
 public:
  // An empty tensor: no storage, shape {}, numel() == 0, dtype f32.
  Tensor() = default;
  // Owned, zero-filled storage for `shape` (every dimension >= 0, else cpuft::Error).
  Tensor(DType dtype, std::vector<int64_t> shape);
  Tensor(DType dtype, std::initializer_list<int64_t> shape)
      : Tensor(dtype, std::vector<int64_t>(shape)) {}
  // A non-owning tensor over `data` (which must hold numel * dtype_size bytes).
  static Tensor borrow(void* data, DType dtype, std::vector<int64_t> shape);

  ~Tensor();
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  // Size of dimension i; negative i counts from the end (-1 is the last). Throws if out of range.
  int64_t dim(int i) const;
  int64_t numel() const { return numel_; }
  size_t bytes() const { return static_cast<size_t>(numel_) * dtype_size(dtype_); }
  bool owns_storage() const { return owned_; }
  bool empty() const { return numel_ == 0; }

  void* raw() { return data_; }
  const void* raw() const { return data_; }
  // Typed access; throws cpuft::Error naming both dtypes when T does not match dtype().
  template <typename T>
  T* data() {
    check_dtype(dtype_of<T>::value);
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* data() const {
    check_dtype(dtype_of<T>::value);
    return static_cast<const T*>(data_);
  }

  // A view of the whole tensor (same shape).
  Tensor view() const;
  // A view of rows [begin, end) along dimension 0 (shape {end-begin, dims 1..}); throws if the
  // range is outside [0, dim(0)] or the tensor is 0-dimensional.
  Tensor rows(int64_t begin, int64_t end) const;
  // A view with another shape of the same numel (throws otherwise).
  Tensor reshaped(std::vector<int64_t> shape) const;

  // Sets every byte to zero.
  void zero();
  // "bf16[3072, 768]"
  std::string describe() const;

 private:
  void check_dtype(DType want) const;

  void* data_ = nullptr;
  DType dtype_ = DType::f32;
  bool owned_ = false;
  std::vector<int64_t> shape_;
  int64_t numel_ = 0;
};

}  // namespace cpuft
