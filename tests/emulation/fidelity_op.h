// One intrinsic (or a few chained) as fidelity_ops.h lists them for the emulation's fidelity test.
#pragma once

namespace cpuft::test {

struct FidelityOp {
  const char* name;
  // The result is f32 lanes: two NaNs count as equal whatever their payloads (which operand's NaN an
  // arithmetic instruction returns is not something C++ arithmetic, or the kernels, fix).
  bool f32_result;
  void (*run)(const void* a, const void* b, const void* c, void* out);  // 64 bytes each
};

// The list compiled with the AVX-512 flags (the instructions; fidelity_native.cc) and with the emulated
// build's flags (avx512_on_avx2.h; fidelity_emulated_avx512.cc), in the same order.
const FidelityOp* fidelity_native_ops(int* count);
const FidelityOp* fidelity_emulated_ops(int* count);

}  // namespace cpuft::test
