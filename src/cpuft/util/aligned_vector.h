// AlignedVector<T>: a std::vector whose storage starts on a cache line (64 bytes) and, from 2 MiB on, inside
// transparent huge pages asked for before its first write (util/huge_pages.h). A std::vector's large
// allocation starts 16 bytes into a page (the allocator's header before it), so every 64-byte vector load
// or store of its "aligned" rows straddled two cache lines, and so did the AMX tile rows and the streaming
// stores of whole lines (docs/performance.md, "Aligned buffers").
//
// A large buffer starts a staggered distance past its 2 MiB boundary: the n-th large allocation of the
// process at (n mod 16) x 4160 bytes (a whole number of cache lines, 4 KiB + one line per step). Buffers of
// one size allocated one after the other (weights, gradients and the two AdamW moments: one arena each)
// otherwise lie a power of two apart, 256 MiB at DistilBERT's size, so that element i of each falls on
// the same L1 set and, on AMD Zen, the same L1 tag hash (linear address bits 12-27): a pass that streams
// several of them at one index (AdamW: four read, four written) ran 3 to 5 times slower (docs/performance.md,
// "Buffers a power of two apart").
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "cpuft/util/huge_pages.h"

namespace cpuft {

// The step between the places large buffers start at past their 2 MiB boundary: 4 KiB and one cache line.
constexpr size_t kLargeBufferStaggerStep = 4096 + 64;

// Bytes past its 2 MiB boundary at which the process's next large buffer starts (whatever its element type).
inline size_t next_large_buffer_stagger() {
  constexpr size_t kStaggers = 16;
  static std::atomic<size_t> count{0};
  return count.fetch_add(1, std::memory_order_relaxed) % kStaggers * kLargeBufferStaggerStep;
}

template <class T>
struct CacheAlignedAllocator {
  using value_type = T;
  static constexpr size_t kLine = 64, kHugePage = size_t{2} << 20;

  CacheAlignedAllocator() = default;
  template <class U>
  CacheAlignedAllocator(const CacheAlignedAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return static_cast<T*>(::operator new (bytes, std::align_val_t{kLine}));
    const size_t stagger = next_large_buffer_stagger();
    auto* base = static_cast<char*>(::operator new (bytes + stagger, std::align_val_t{kHugePage}));
    advise_huge_pages(base, bytes + stagger);
    return reinterpret_cast<T*>(base + stagger);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) < kHugePage) return ::operator delete (p, std::align_val_t{kLine});
    // The stagger is below 2 MiB: the allocation starts at p's 2 MiB boundary.
    const uintptr_t at = reinterpret_cast<uintptr_t>(p);
    ::operator delete (reinterpret_cast<void*>(at - at % kHugePage), std::align_val_t{kHugePage});
  }

  template <class U>
  bool operator==(const CacheAlignedAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const CacheAlignedAllocator<U>&) const noexcept {
    return false;
  }
};

template <class T>
using AlignedVector = std::vector<T, CacheAlignedAllocator<T>>;

}  // namespace cpuft
