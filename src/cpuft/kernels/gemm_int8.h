// Int8 matrix products through oneDNN matmul primitives: u8 activations times s8 weights with s32
// accumulation, the product of the int8 linear layers of a quantized model (model/int8_linear.h).
// oneDNN runs it on AMX-INT8 or AVX512_VNNI / AVX-VNNI (vpdpbusd, exact 32-bit sums) where the CPU
// has them; elsewhere on its AVX2 / AVX-512 fallback (vpmaddubsw + vpmaddwd), whose 16-bit
// intermediate sums saturate unless the u8 operand stays below 128: int8_activation_levels() says
// which range activations must use here. Primitives are built once per shape and cached, as in
// kernels/gemm.h. Call from one thread at a time: each product uses every OpenMP thread.
#pragma once

#include <cstdint>
#include <string>

namespace cpuft {

// c[M, N] = a[M, K] · w[N, K]^T with a u8 and w s8 row-major (w as Hugging Face stores [out, in]),
// c s32 row-major with row stride N. `c` is raw storage: it may be the f32 output buffer the result
// is then dequantized into (kernels/quantize.h). Throws cpuft::Error on non-positive sizes, null
// pointers, or when oneDNN cannot build the product.
void matmul_u8s8s32(int64_t M, int64_t N, int64_t K, const uint8_t* a, const int8_t* w, void* c);

// oneDNN's implementation of a layer-sized u8 x s8 product here ("gemm:jit", "brg:avx512_core_vnni",
// "brg:avx512_core_amx", ...). Decided once, by building the primitive.
const std::string& gemm_int8_impl();

// Which int8 instructions the product uses, from oneDNN's ISA and implementation: "AMX-INT8",
// "AVX512_VNNI", "AVX-VNNI", or "" (no VNNI: the saturating fallback). Pure, for tests.
std::string int8_vnni_kind(const std::string& onednn_isa, const std::string& impl);

// The largest u8 activation value: 255 with VNNI or AMX, 127 without (see above).
int int8_activation_levels();

// One line for doctor and notices, e.g. "u8 x s8 -> s32 matmul on AVX512_VNNI (oneDNN
// brg:avx512_core_vnni), 8-bit activations" or "u8 x s8 -> s32 matmul without VNNI (oneDNN gemm:jit,
// isa avx2): its fallback, with 7-bit activations (0..127) so that its 16-bit sums cannot saturate".
std::string describe_int8_matmul();

// Number of int8 primitives built so far (tests use it to show the cache works).
int64_t gemm_int8_primitives_created();

}  // namespace cpuft
