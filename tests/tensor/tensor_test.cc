#include "cpuft/tensor/tensor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "cpuft/util/error.h"

namespace cpuft {
namespace {

// Runs fn, expecting cpuft::Error whose message contains `needle`.
template <typename Fn>
void expect_error(Fn fn, const std::string& needle) {
  try {
    fn();
    FAIL() << "expected cpuft::Error containing: " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Tensor, DtypeSizesAndNames) {
  EXPECT_EQ(dtype_size(DType::f32), 4u);
  EXPECT_EQ(dtype_size(DType::bf16), 2u);
  EXPECT_EQ(dtype_size(DType::i32), 4u);
  EXPECT_EQ(dtype_size(DType::i64), 8u);
  EXPECT_STREQ(dtype_name(DType::bf16), "bf16");
}

TEST(Tensor, OwnedIsZeroedAlignedAndSized) {
  Tensor t(DType::bf16, {3, 5, 7});
  EXPECT_TRUE(t.owns_storage());
  EXPECT_EQ(t.ndim(), 3);
  EXPECT_EQ(t.numel(), 105);
  EXPECT_EQ(t.bytes(), 210u);
  EXPECT_EQ(t.dim(-1), 7);
  EXPECT_EQ(t.dim(0), 3);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw()) % kTensorAlignment, 0u);
  const uint16_t* p = t.data<uint16_t>();
  for (int64_t i = 0; i < t.numel(); ++i) ASSERT_EQ(p[i], 0);
  EXPECT_EQ(t.describe(), "bf16[3, 5, 7]");
}

TEST(Tensor, ZeroSizedTensorsAreValid) {
  Tensor t(DType::f32, {0, 768});
  EXPECT_EQ(t.numel(), 0);
  EXPECT_TRUE(t.empty());
  EXPECT_NE(t.raw(), nullptr);
  t.zero();
  Tensor e;
  EXPECT_EQ(e.numel(), 0);
  EXPECT_EQ(e.raw(), nullptr);
}

TEST(Tensor, TypedAccessChecksDtype) {
  Tensor t(DType::i64, {4});
  t.data<int64_t>()[3] = 42;
  EXPECT_EQ(t.data<int64_t>()[3], 42);
  expect_error([&] { t.data<float>(); }, "i64[4]: accessed as f32, but its dtype is i64");
}

TEST(Tensor, BadShapesAreRejected) {
  expect_error([] { Tensor t(DType::f32, {2, -1}); }, "dimension 1 is -1, expected >= 0");
  expect_error([] { Tensor t(DType::f32, {int64_t(1) << 40, int64_t(1) << 40}); }, "overflows");
  Tensor t(DType::f32, {2, 3});
  expect_error([&] { t.dim(2); }, "dimension index 2 out of range");
  expect_error([] { Tensor::borrow(nullptr, DType::f32, {2}); }, "null data");
}

TEST(Tensor, RowsViewSharesStorage) {
  Tensor t(DType::f32, {4, 3});
  float* p = t.data<float>();
  for (int i = 0; i < 12; ++i) p[i] = static_cast<float>(i);
  Tensor v = t.rows(1, 3);
  EXPECT_FALSE(v.owns_storage());
  EXPECT_EQ(v.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(v.data<float>()[0], 3.0f);
  v.data<float>()[5] = -1.0f;
  EXPECT_EQ(p[8], -1.0f);
  EXPECT_EQ(t.rows(4, 4).numel(), 0);
  expect_error([&] { t.rows(2, 5); }, "rows [2, 5) outside [0, 4]");
  expect_error([&] { t.rows(3, 2); }, "rows [3, 2)");
}

TEST(Tensor, ReshapedKeepsElementCount) {
  Tensor t(DType::i32, {6, 4});
  Tensor r = t.reshaped({2, 3, 4});
  EXPECT_EQ(r.raw(), t.raw());
  EXPECT_EQ(r.dim(1), 3);
  expect_error([&] { t.reshaped({5, 5}); }, "cannot reshape to [5, 5] (25 elements, expected 24)");
}

TEST(Tensor, MoveTransfersOwnership) {
  Tensor a(DType::f32, {8});
  void* p = a.raw();
  Tensor b(std::move(a));
  EXPECT_EQ(b.raw(), p);
  EXPECT_TRUE(b.owns_storage());
  EXPECT_EQ(a.raw(), nullptr);
  EXPECT_EQ(a.numel(), 0);
  Tensor c(DType::f32, {2});
  c = std::move(b);
  EXPECT_EQ(c.raw(), p);
  EXPECT_EQ(c.numel(), 8);
}

TEST(Tensor, BorrowedViewDoesNotFree) {
  float buf[6] = {1, 2, 3, 4, 5, 6};
  {
    Tensor v = Tensor::borrow(buf, DType::f32, {2, 3});
    EXPECT_FALSE(v.owns_storage());
    v.zero();
  }
  EXPECT_EQ(buf[5], 0.0f);  // zero() wrote through; the destructor left the buffer alone
}

}  // namespace
}  // namespace cpuft
