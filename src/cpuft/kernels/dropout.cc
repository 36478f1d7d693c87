// Dropout: the keep-mask key and threshold and dispatch.
#include "cpuft/kernels/dropout.h"

#include "cpuft/kernels/dropout_hash.h"
#include "cpuft/kernels/kernel_table.h"
#include "cpuft/util/error.h"
#include "cpuft/util/op_profile.h"

namespace cpuft {
namespace {

// The key of element 0 of a tensor whose elements are numbered from first_index: the hash takes
// index * golden + low32(key) (mod 2^32), so moving the low word by first_index * golden numbers
// the elements from first_index without touching the kernels.
uint64_t key_at(uint64_t seed, uint64_t stream, uint64_t first_index) {
  const uint64_t key = dropout_key(seed, stream);
  const uint32_t low = static_cast<uint32_t>(key) + static_cast<uint32_t>(first_index) * 0x9e3779b9u;
  return (key & 0xffffffff00000000ull) | low;
}

void dropout_run(float* out, uint16_t* out_bf16, const float* in, int64_t n, float p, uint64_t key,
                 const uint8_t* keep_in, uint8_t* keep_out, const char* what) {
  if (!(p >= 0.0f && p <= 1.0f)) fail(what, ": dropout probability ", p, ", expected [0, 1]");
  if (n < 0 || n > int64_t{0xffffffff}) {
    fail(what, ": ", n, " elements, expected fewer than 2^32 (the mask index is 32 bits)");
  }
  // p == 0: the identity (torch skips the mask); p == 1: zeros. Both through the same kernel:
  // a threshold of 0 keeps everything and a scale of 0 drops everything.
  OpScope scope(Op::kDropout);
  const float scale = p >= 1.0f ? 0.0f : 1.0f / (1.0f - p);
  const uint32_t threshold = p >= 1.0f ? 0u : dropout_threshold24(p);
  if (p == 0.0f && out == in && !out_bf16 && !keep_out) return;
  kernels().dropout_apply(out, out_bf16, in, n, scale, key, threshold, keep_in, keep_out);
}

}  // namespace

bool dropout_keep(uint64_t seed, uint64_t stream, uint64_t index, float p) {
  return (dropout_hash(dropout_key(seed, stream), static_cast<uint32_t>(index)) >> 8) >=
         dropout_threshold24(p);
}

void dropout_fwd(float* out, uint16_t* out_bf16, const float* in, int64_t n, float p,
                 uint64_t seed, uint64_t stream, uint64_t first_index, uint8_t* keep_bits) {
  dropout_run(out, out_bf16, in, n, p, key_at(seed, stream, first_index), nullptr, keep_bits, "dropout_fwd");
}

void dropout_bwd(float* din, uint16_t* din_bf16, const float* dout, int64_t n, float p, uint64_t seed,
                 uint64_t stream, uint64_t first_index) {
  dropout_run(din, din_bf16, dout, n, p, key_at(seed, stream, first_index), nullptr, nullptr, "dropout_bwd");
}

void dropout_apply_mask(float* out, uint16_t* out_bf16, const float* in, int64_t n, float p,
                        const uint8_t* keep_bits) {
  if (!keep_bits) fail("dropout_apply_mask: keep_bits is a null pointer");
  dropout_run(out, out_bf16, in, n, p, 0, keep_bits, nullptr, "dropout_apply_mask");
}

}  // namespace cpuft
