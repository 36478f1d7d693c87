// The dropout keep-mask hash, shared by the scalar and vector kernels so they agree bit for bit.
// (seed, stream) -> 64-bit key by a splitmix64-style finaliser (once per call); then per element
// two rounds of a 32-bit multiply-xorshift mixer keyed by the two halves of the key. For a fixed
// key each round is a bijection of the index, so indices never collide within a tensor.
#pragma once

#include <cstdint>

namespace cpuft {

// 64-bit finaliser (constants of splitmix64 / Stafford's "mix13").
static inline uint64_t dropout_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static inline uint64_t dropout_key(uint64_t seed, uint64_t stream) {
  return dropout_mix64(seed ^ dropout_mix64(stream + 0x9e3779b97f4a7c15ull));
}

// 32-bit mixer (the low-bias multiply-xorshift constants found by C. Wellons' hash prospector).
static inline uint32_t dropout_mix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h;
}

static inline uint32_t dropout_hash(uint64_t key, uint32_t index) {
  uint32_t h = dropout_mix32(index * 0x9e3779b9u + static_cast<uint32_t>(key));
  return dropout_mix32(h ^ static_cast<uint32_t>(key >> 32));
}

// The key of element 0 of a tensor whose elements are numbered from first_index: the hash takes
// index * golden + low32(key) (mod 2^32), so moving the low word by first_index * golden numbers
// the elements from first_index without touching the kernels.
static inline uint64_t dropout_key_at(uint64_t seed, uint64_t stream, uint64_t first_index) {
  const uint64_t key = dropout_key(seed, stream);
  const uint32_t low = static_cast<uint32_t>(key) + static_cast<uint32_t>(first_index) * 0x9e3779b9u;
  return (key & 0xffffffff00000000ull) | low;
}

// Kept iff the top 24 bits of the hash are >= threshold24 = round(p * 2^24).
static inline uint32_t dropout_threshold24(float p) {
  double t = static_cast<double>(p) * 16777216.0 + 0.5;
  return t >= 16777216.0 ? 16777216u : static_cast<uint32_t>(t);
}

}  // namespace cpuft
