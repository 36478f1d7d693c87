// The emulation of the AVX-512 intrinsics (avx512_on_avx2.h) against the instructions: every intrinsic
// the kernels use, on special values (zeros, denormals, infinities, NaNs with payloads, rounding ties,
// integer limits), random bits and ordinary numbers, with first-n and random lane masks. It runs only
// in the emulated build (`make test-isa-emulated`) on a CPU with AVX-512 and AVX512_BF16, where it
// shows that what the emulated kernel tests pass on an AVX2 CPU is what the instructions compute.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpuft/cpu/cpu_features.h"
#include "emulation/fidelity_op.h"

namespace cpuft::test {
namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

std::vector<uint32_t> special_words() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<uint32_t> w;
  for (float f : {0.0f,
                  -0.0f,
                  1.0f,
                  -1.0f,
                  0.5f,
                  1.5f,
                  2.5f,
                  -2.5f,
                  3.5f,
                  1e-40f,
                  -1e-42f,
                  1.17549435e-38f,
                  -1.17549435e-38f,
                  1e30f,
                  -1e30f,
                  3.0e38f,
                  inf,
                  -inf,
                  88.7f,
                  -104.0f,
                  -87.3f,
                  65504.0f,
                  2147483520.0f,
                  2147483648.0f,
                  -2147483648.0f,
                  -2147483904.0f,
                  4294967296.0f,
                  255.5f,
                  256.0f})
    w.push_back(bits_of(f));
  for (uint32_t u : {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff812345u, 0x7fbfffffu, 0x00000001u, 0x80000001u,
                     0x007fffffu, 0x3f808000u, 0x3f818000u, 0x3f807fffu, 0x3f80ffffu, 0x7f7f8000u, 0x7f7fffffu,
                     0x00008000u, 0x0000ffffu, 0x000000ffu, 0x00000100u, 0xffffffffu, 0x80000000u, 0x7fffffffu})
    w.push_back(u);
  return w;
}

// One 64-byte operand: each lane a special word, random bits, an ordinary float or a small integer.
void fill(uint32_t* lanes, std::mt19937& rng, const std::vector<uint32_t>& special) {
  std::uniform_int_distribution<int> kind(0, 3);
  std::uniform_int_distribution<size_t> pick(0, special.size() - 1);
  std::uniform_real_distribution<float> ordinary(-12.0f, 12.0f);
  std::uniform_int_distribution<uint32_t> small(0, 300);
  for (int i = 0; i < 16; ++i) {
    switch (kind(rng)) {
      case 0: lanes[i] = special[pick(rng)]; break;
      case 1: lanes[i] = static_cast<uint32_t>(rng()); break;
      case 2: lanes[i] = bits_of(ordinary(rng)); break;
      default: lanes[i] = small(rng); break;
    }
  }
}

bool same_lanes(const FidelityOp& op, const uint32_t* x, const uint32_t* y) {
  for (int i = 0; i < 16; ++i) {
    if (x[i] == y[i]) continue;
    const bool nan_x = (x[i] & 0x7fffffffu) > 0x7f800000u, nan_y = (y[i] & 0x7fffffffu) > 0x7f800000u;
    if (op.f32_result && nan_x && nan_y) continue;
    return false;
  }
  return true;
}

std::string hex(const uint32_t* w) {
  std::string s;
  char buf[12];
  for (int i = 0; i < 16; ++i) {
    std::snprintf(buf, sizeof buf, "%08x ", w[i]);
    s += buf;
  }
  return s;
}

TEST(Avx512Emulation, EveryIntrinsicTheKernelsUseGivesTheInstructionsBits) {
  const CpuFeatures& f = cpu_features();
  if (!f.has_avx512_kernels() || !f.avx512_bf16)
    GTEST_SKIP() << "this CPU has no AVX-512 with AVX512_BF16 to compare the emulation with";
  int n_native = 0, n_emulated = 0;
  const FidelityOp* native = fidelity_native_ops(&n_native);
  const FidelityOp* emulated = fidelity_emulated_ops(&n_emulated);
  ASSERT_EQ(n_native, n_emulated);
  const std::vector<uint32_t> special = special_words();
  std::mt19937 rng(20261206);
  alignas(64) uint32_t a[16], b[16], c[16], want[16], got[16];
  for (int k = 0; k < n_native; ++k) {
    ASSERT_STREQ(native[k].name, emulated[k].name);
    for (int trial = 0; trial < 4000; ++trial) {
      fill(a, rng, special);
      fill(b, rng, special);
      fill(c, rng, special);
      // Half the masks (c's first word) are the first n lanes, as the kernels' tails use them.
      if (trial % 2 == 0) c[0] = (1u << (trial / 2 % 17)) - 1u;
      native[k].run(a, b, c, want);
      emulated[k].run(a, b, c, got);
      ASSERT_TRUE(same_lanes(native[k], want, got))
          << native[k].name << "\n  a " << hex(a) << "\n  b " << hex(b) << "\n  c " << hex(c) << "\n  instruction "
          << hex(want) << "\n  emulation   " << hex(got);
    }
  }
  std::printf("[ MEASURED ] %d intrinsics, 4000 operand triples each: the emulation gives the instructions' bits\n",
              n_native);
}

}  // namespace
}  // namespace cpuft::test
