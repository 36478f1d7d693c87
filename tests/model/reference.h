// Loads a fixture written by tools/make_model_reference.py: tests/fixtures/model/<name>/ holds the model
// (config.json, model.safetensors) and reference.safetensors (inputs, logits, loss, gradients, ...).
#pragma once

#include <cstdint>
#include <cstring>
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "cpuft/io/safetensors.h"
#include "cpuft/model/qa_model.h"

namespace cpuft::test {

inline std::string model_fixture_dir(const std::string& name) { return std::string(CPUFT_FIXTURES) + "/model/" + name; }

struct Reference {
  explicit Reference(const std::string& path) : reader(path) {
    const StTensorInfo* ids = reader.find("input_ids");
    batch = static_cast<int>(ids->shape[0]);
    seq_len = static_cast<int>(ids->shape[1]);
    input_ids = ints<int32_t>("input_ids");
    token_types = ints<int8_t>("token_type_ids");
    mask = ints<int8_t>("attention_mask");
    if (reader.find("start_positions")) {
      start = ints<int32_t>("start_positions");
      end = ints<int32_t>("end_positions");
    }
  }
  std::vector<float> f32(const std::string& name) const { return reader.read_f32(name); }
  bool has(const std::string& name) const { return reader.find(name) != nullptr; }
  // An I64 tensor narrowed to T.
  template <typename T>
  std::vector<T> ints(const std::string& name) const {
    const StTensorInfo* t = reader.find(name);
    std::vector<T> out(static_cast<size_t>(t->numel()));
    const uint8_t* p = reader.data(*t);
    for (size_t i = 0; i < out.size(); ++i) {
      int64_t v;
      std::memcpy(&v, p + i * sizeof v, sizeof v);
      out[i] = static_cast<T>(v);
    }
    return out;
  }
  QaModel::Batch batch_view() const {
    QaModel::Batch b;
    b.input_ids = input_ids.data();
    b.token_type_ids = token_types.data();
    b.attention_mask = mask.data();
    b.start_positions = start.empty() ? nullptr : start.data();
    b.end_positions = end.empty() ? nullptr : end.data();
    b.batch = batch;
    b.seq_len = seq_len;
    return b;
  }

  // The evaluation logits `got` (batch, seq_len) of cpuft, made comparable with the reference's `want`:
  // QaModel::forward computes only each window's tokens up to its last unmasked one and gives the
  // positions after it QaModel::kPadLogit (checked here, a test failure otherwise); the copy returned
  // holds the reference's values there, so rel_max_diff on it measures the real positions only.
  std::vector<float> real_positions(const float* got, const std::vector<float>& want) const {
    std::vector<float> out(got, got + want.size());
    for (int b = 0; b < batch; ++b) {
      int len = seq_len;
      while (len > 0 && !mask[static_cast<size_t>(b * seq_len + len - 1)]) --len;
      if (len == 0) len = seq_len;
      for (int t = len; t < seq_len; ++t) {
        const size_t i = static_cast<size_t>(b * seq_len + t);
        EXPECT_EQ(out[i], QaModel::kPadLogit) << "window " << b << " position " << t << " is padding";
        out[i] = want[i];
      }
    }
    return out;
  }

  SafetensorsReader reader;
  int batch = 0, seq_len = 0;
  std::vector<int32_t> input_ids, start, end;
  std::vector<int8_t> token_types, mask;
};

// max |a - b| / max(max |b|, floor): the error relative to the tensor's scale.
inline double rel_max_diff(const float* a, const std::vector<float>& b, double floor = 1e-6) {
  double diff = 0, scale = floor;
  for (size_t i = 0; i < b.size(); ++i) {
    diff = std::max(diff, static_cast<double>(std::abs(a[i] - b[i])));
    scale = std::max(scale, static_cast<double>(std::abs(b[i])));
  }
  return diff / scale;
}

// rel_max_diff of a model's (batch, seq_len) logits against the fixture's tensor `name` over the real
// positions (Reference::real_positions checks that padding holds kPadLogit), the tensor read once.
inline double real_positions_diff(const Reference& ref, const float* got, const std::string& name) {
  const std::vector<float> want = ref.f32(name);
  return rel_max_diff(ref.real_positions(got, want).data(), want);
}

// How close cpuft must come to transformers' fixtures: the loss relative to the reference loss, the
// logits relative to the largest reference logit (rel_max_diff), and each gradient tensor as
// check_gradients measures it (grad_floor, grad). Named once so that every parity test holds the same line.
struct ParityTolerance {
  double loss, logits, grad_floor, grad;
};
// FP32: the same operations summed in another order.
inline constexpr ParityTolerance kF32Parity{1e-5, 1e-5, 1e-2, 2e-4};
// BF16 against autocast: rounding noise is ~4e-3 of each product's terms, and the sums that are zero in
// exact arithmetic (see check_gradients) cancel terms of the size of the largest gradients: hence the
// floor of 3e-2 x the largest gradient, and 5e-2 relative elsewhere (logits 3e-2, loss 1e-2).
inline constexpr ParityTolerance kBf16Parity{1e-2, 3e-2, 3e-2, 5e-2};

// Worst gradient difference over all tensors, each relative to max(its own max |ref|, tol.grad_floor x
// the largest reference gradient of the model). Some gradients are zero in exact arithmetic (key
// biases: softmax ignores a shift; qa_outputs.bias and the last LayerNorm bias: softmax - onehot
// sums to 0 over positions), so their reference holds rounding noise; the floor keeps the ratio
// meaningful there. Fails the test for any tensor above tol.grad.
inline double check_gradients(const QaModel& m, const Reference& ref, const std::string& prefix,
                              const ParityTolerance& tol) {
  double global = 0;
  for (const ParamEntry& e : m.table().entries())
    for (float g : ref.f32(prefix + e.name)) global = std::max(global, static_cast<double>(std::abs(g)));
  double worst = 0;
  for (const ParamEntry& e : m.table().entries()) {
    const double d = rel_max_diff(m.grads() + e.offset, ref.f32(prefix + e.name), tol.grad_floor * global);
    worst = std::max(worst, d);
    EXPECT_LT(d, tol.grad) << e.name;
  }
  return worst;
}

}  // namespace cpuft::test
