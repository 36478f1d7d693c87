// Dropout: the keep-mask key and threshold and dispatch.
#include "cpuft/kernels/dropout.h"

#include "cpuft/kernels/dropout_hash.h"
#include "cpuft/kernels/kernel_table.h"
#include "cpuft/util/error.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {
namespace {

void dropout_run(float* out, uint16_t* out_bf16, const float* in, const uint16_t* in_bf16, int64_t n, float p,
                 uint64_t seed, uint64_t stream, uint64_t first_index, const char* what) {
  if (!(p >= 0.0f && p <= 1.0f)) fail(what, ": dropout probability ", p, ", expected [0, 1]");
  if (n < 0 || n > int64_t{0xffffffff}) {
    fail(what, ": ", n, " elements, expected fewer than 2^32 (the mask index is 32 bits)");
  }
  // p == 0: the identity (torch skips the mask); p == 1: zeros. Both through the same kernel:
  // a threshold of 0 keeps everything and a scale of 0 drops everything.
  OpScope scope(Op::kDropout);
  const float scale = p >= 1.0f ? 0.0f : 1.0f / (1.0f - p);
  const uint32_t threshold = p >= 1.0f ? 0u : dropout_threshold24(p);
  if (p == 0.0f && out == in && !out_bf16) return;
  kernels().dropout_apply(out, out_bf16, in, in_bf16, n, scale, dropout_key_at(seed, stream, first_index), threshold);
}

}  // namespace

bool dropout_keep(uint64_t seed, uint64_t stream, uint64_t index, float p) {
  return (dropout_hash(dropout_key(seed, stream), static_cast<uint32_t>(index)) >> 8) >=
         dropout_threshold24(p);
}

void dropout_fwd(float* out, uint16_t* out_bf16, const float* in, int64_t n, float p,
                 uint64_t seed, uint64_t stream, uint64_t first_index) {
  dropout_run(out, out_bf16, in, nullptr, n, p, seed, stream, first_index, "dropout_fwd");
}

void dropout_fwd_bf16_in(float* out, const uint16_t* in, int64_t n, float p, uint64_t seed, uint64_t stream,
                         uint64_t first_index) {
  dropout_run(out, nullptr, nullptr, in, n, p, seed, stream, first_index, "dropout_fwd_bf16_in");
}

void dropout_bwd(float* din, uint16_t* din_bf16, const float* dout, int64_t n, float p, uint64_t seed,
                 uint64_t stream, uint64_t first_index) {
  dropout_run(din, din_bf16, dout, nullptr, n, p, seed, stream, first_index, "dropout_bwd");
}

}  // namespace cpuft
