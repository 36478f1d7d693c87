#include "cpuft/tensor/tensor.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

#include "cpuft/util/error.h"
#include "cpuft/util/shape_text.h"

namespace cpuft {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::bf16: return 2;
    case DType::i32: return 4;
    case DType::i64: return 8;
  }
  fail("dtype_size: unknown dtype ", static_cast<int>(t));
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

void* aligned_alloc_bytes(size_t bytes) {
  // std::aligned_alloc needs a size that is a multiple of the alignment (and non-zero to be unique).
  size_t rounded = (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  if (rounded == 0) rounded = kTensorAlignment;
  void* p = std::aligned_alloc(kTensorAlignment, rounded);
  if (!p) fail("out of memory allocating ", bytes, " bytes for a tensor");
  return p;
}

void aligned_free(void* p) { std::free(p); }

namespace {

// Product of the dimensions; throws on a negative dimension or an overflowing product.
int64_t checked_numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d < 0) fail("tensor shape: dimension ", i, " is ", d, ", expected >= 0");
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      fail("tensor shape: element count overflows int64 at dimension ", i);
    n *= d;
  }
  return n;
}

}  // namespace

Tensor::Tensor(DType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), owned_(true), shape_(std::move(shape)), numel_(checked_numel(shape_)) {
  data_ = aligned_alloc_bytes(bytes());
  std::memset(data_, 0, bytes());
}

Tensor Tensor::borrow(void* data, DType dtype, std::vector<int64_t> shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.numel_ = checked_numel(t.shape_);
  if (!data && t.numel_ > 0) fail("Tensor::borrow: null data for ", t.describe());
  t.data_ = data;
  return t;
}

Tensor::~Tensor() {
  if (owned_) aligned_free(data_);
}

Tensor::Tensor(Tensor&& o) noexcept
    : data_(o.data_), dtype_(o.dtype_), owned_(o.owned_), shape_(std::move(o.shape_)),
      numel_(o.numel_) {
  o.data_ = nullptr;
  o.owned_ = false;
  o.shape_.clear();
  o.numel_ = 0;
}

Tensor& Tensor::operator=(Tensor&& o) noexcept {
  if (this != &o) {
    if (owned_) aligned_free(data_);
    data_ = o.data_;
    dtype_ = o.dtype_;
    owned_ = o.owned_;
    shape_ = std::move(o.shape_);
    numel_ = o.numel_;
    o.data_ = nullptr;
    o.owned_ = false;
    o.shape_.clear();
    o.numel_ = 0;
  }
  return *this;
}

int64_t Tensor::dim(int i) const {
  int n = ndim();
  int j = i < 0 ? i + n : i;
  if (j < 0 || j >= n) fail("tensor ", describe(), ": dimension index ", i, " out of range");
  return shape_[j];
}

Tensor Tensor::view() const { return borrow(data_, dtype_, shape_); }

Tensor Tensor::rows(int64_t begin, int64_t end) const {
  if (shape_.empty()) fail("tensor ", describe(), ": rows() of a 0-dimensional tensor");
  if (begin < 0 || end < begin || end > shape_[0])
    fail("tensor ", describe(), ": rows [", begin, ", ", end, ") outside [0, ", shape_[0], "]");
  std::vector<int64_t> s = shape_;
  s[0] = end - begin;
  int64_t row_elems = shape_[0] == 0 ? 0 : numel_ / shape_[0];
  char* base = static_cast<char*>(data_);
  void* p = base ? base + static_cast<size_t>(begin * row_elems) * dtype_size(dtype_) : nullptr;
  return borrow(p, dtype_, std::move(s));
}

Tensor Tensor::reshaped(std::vector<int64_t> shape) const {
  int64_t n = checked_numel(shape);
  if (n != numel_)
    fail("tensor ", describe(), ": cannot reshape to ", shape_text(shape), " (", n,
         " elements, expected ", numel_, ")");
  return borrow(data_, dtype_, std::move(shape));
}

void Tensor::zero() {
  if (numel_ > 0) std::memset(data_, 0, bytes());
}

std::string Tensor::describe() const {
  return std::string(dtype_name(dtype_)) + shape_text(shape_);
}

void Tensor::check_dtype(DType want) const {
  if (want != dtype_)
    fail("tensor ", describe(), ": accessed as ", dtype_name(want), ", but its dtype is ", dtype_name(dtype_));
}

}  // namespace cpuft
