// AlignedVector<T>: a std::vector whose storage starts on a cache line (64 bytes) and, from 2 MiB on, on a
// 2 MiB boundary with transparent huge pages asked for before its first write (util/huge_pages.h). A
// std::vector's large allocation starts 16 bytes into a page (the allocator's header before it), so every
// 64-byte vector load or store of its "aligned" rows straddled two cache lines, and so did the AMX tile
// rows and the streaming stores of whole lines (docs/performance.md, "Aligned buffers").
#pragma once

#include <cstddef>
#include <new>
#include <vector>

#include "cpuft/util/huge_pages.h"

namespace cpuft {

template <class T>
struct CacheAlignedAllocator {
  using value_type = T;
  static constexpr size_t kLine = 64, kHugePage = size_t{2} << 20;

  CacheAlignedAllocator() = default;
  template <class U>
  CacheAlignedAllocator(const CacheAlignedAllocator<U>&) noexcept {}

  static size_t alignment(size_t bytes) { return bytes >= kHugePage ? kHugePage : kLine; }
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    void* p = ::operator new (bytes, std::align_val_t{alignment(bytes)});
    if (bytes >= kHugePage) advise_huge_pages(p, bytes);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept { ::operator delete (p, std::align_val_t{alignment(n * sizeof(T))}); }

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
