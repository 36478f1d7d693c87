// Helpers for the kernel templates: full-width or partial (tail) loads and stores, so every
// element, the tail included, goes through the same vector code.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace cpuft {

// Column sums down the rows (bias_grad, gelu_bwd's bias gradient, layernorm_bwd's weight and bias
// gradients): each thread owns a contiguous range of columns and adds the rows in order, at most
// kColumnChunk columns at a time, its sums in an array of that many floats; a row's chunk is read in one
// piece, which the hardware prefetchers follow (slabs of 64 columns, 256 bytes a row, ran 1.2-1.8x
// slower). Each column's sum is the same whatever the thread count.
constexpr int64_t kColumnChunk = 4096;

// Calls chunk(c0, c1) for each chunk [c0, c1) of at most kColumnChunk columns of the calling thread's
// contiguous range of the N columns (whole vectors of V but at the end), in an OpenMP parallel region.
template <class V, class Chunk>
void for_each_column_chunk(int64_t N, Chunk chunk) {
  const int64_t vectors = (N + V::W - 1) / V::W;
#pragma omp parallel
  {
    const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t c_begin = vectors * t / threads * V::W;
    const int64_t c_end = std::min(N, vectors * (t + 1) / threads * V::W);
    for (int64_t c0 = c_begin; c0 < c_end; c0 += kColumnChunk) chunk(c0, std::min(c_end, c0 + kColumnChunk));
  }
}

// Elements per OpenMP task for flat elementwise loops (a fixed size, so results and the mask
// indices never depend on the thread count).
constexpr int64_t kFlatChunk = 16384;

template <class V>
typename V::F load_k(const float* p, int k, float fill = 0.0f) {
  return k == V::W ? V::load(p) : V::load_part(p, k, fill);
}

template <class V>
void store_k(float* p, int k, typename V::F v) {
  if (k == V::W) {
    V::store(p, v);
  } else {
    V::store_part(p, k, v);
  }
}

template <class V>
void store_bf16_k(uint16_t* p, int k, typename V::F v) {
  if (k == V::W) {
    V::store_bf16(p, v);
  } else {
    V::store_bf16_part(p, k, v);
  }
}

template <class V>
typename V::F load_bf16_k(const uint16_t* p, int k) {
  return k == V::W ? V::load_bf16(p) : V::load_bf16_part(p, k);
}

// Lanes i .. i + k - 1 of an array that is f32 (x) or bf16 (x_bf16, widened exactly).
template <class V>
typename V::F load_f32_or_bf16(const float* x, const uint16_t* x_bf16, int64_t i, int k) {
  return x ? load_k<V>(x + i, k) : load_bf16_k<V>(x_bf16 + i, k);
}

// fn(std::bool_constant<b>{}...) for the runtime flags b...: the loops inside fn are compiled once per
// combination and test none of the flags per vector. (Tested per vector, as GCC left such tests in the
// softmax's loops, they cost as much as a pass's own arithmetic: perf annotate on Zen 3.)
template <class Fn>
[[gnu::always_inline]] inline decltype(auto) with_flags(Fn&& fn) {
  return fn();
}
template <class Fn, class... Flags>
[[gnu::always_inline]] inline decltype(auto) with_flags(Fn&& fn, bool first, Flags... rest) {
  if (first) return with_flags([&](auto... f) { return fn(std::true_type{}, f...); }, rest...);
  return with_flags([&](auto... f) { return fn(std::false_type{}, f...); }, rest...);
}

// Written between a loop body lambda's parameters and its braces, [&](int64_t c, int k) CPUFT_INLINE_BODY
// { ... }, for every body given to over_columns or for_each_flat_chunk (and a helper lambda such a body
// calls per vector, as LayerNorm's load_x): the body is then inlined at both of over_columns' calls. Left to its
// heuristics, GCC made the AVX-512 backward softmax's second loop body (the exps' tails and the dropout) a function
// call per vector.
#define CPUFT_INLINE_BODY __attribute__((always_inline))

// body(c, k) over the columns [c0, c1): the whole vectors with k the constant W (the width tests of
// load_k / store_k fold away), then the tail, if any, with its k.
template <class V, class Body>
[[gnu::always_inline]] inline void over_columns(int64_t c0, int64_t c1, Body&& body) {
  int64_t c = c0;
  for (; c + V::W <= c1; c += V::W) body(c, V::W);
  if (c < c1) body(c, static_cast<int>(c1 - c));
}

// body(i, k) over the elements [0, n) of a flat array, in chunks of kFlatChunk that the OpenMP threads
// share (static schedule), each chunk as over_columns runs it. Each chunk runs a copy of body (a lambda
// that captures by value): its captures are then the thread's own, kept in registers, not loaded again
// after every store as a shared closure's would be (a float store may alias a float capture).
template <class V, class Body>
void for_each_flat_chunk(int64_t n, const Body& body) {
  const int64_t chunks = (n + kFlatChunk - 1) / kFlatChunk;
#pragma omp parallel for schedule(static)
  for (int64_t ch = 0; ch < chunks; ++ch) {
    Body own = body;
    over_columns<V>(ch * kFlatChunk, std::min(n, (ch + 1) * kFlatChunk), own);
  }
}

}  // namespace cpuft
