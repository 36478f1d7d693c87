// fidelity_ops.h compiled as the emulated build compiles every *_avx512.cc file: for AVX2, with
// avx512_on_avx2.h included first.
#define FIDELITY_NS emulated
#include "emulation/fidelity_ops.h"

namespace cpuft::test {

const FidelityOp* fidelity_emulated_ops(int* count) { return emulated::fidelity_ops(count); }

}  // namespace cpuft::test
