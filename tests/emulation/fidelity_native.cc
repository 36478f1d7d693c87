// fidelity_ops.h compiled with the AVX-512 flags (CMakeLists.txt sets them on this file): the
// instructions themselves, run only on a CPU that has them (fidelity_test.cc checks).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#define FIDELITY_NS native
#include "emulation/fidelity_ops.h"

namespace cpuft::test {

const FidelityOp* fidelity_native_ops(int* count) { return native::fidelity_ops(count); }

}  // namespace cpuft::test
