#include "cpuft/parallel/sparse_rows.h"

#include <algorithm>
#include <cstring>

#include "cpuft/util/error.h"

namespace cpuft {

SparseRows::SparseRows(size_t rows, size_t width) : width_(width), flags_(rows, 0) { union_.reserve(rows); }

void SparseRows::note(const int32_t* ids, size_t count) {
  const size_t rows = flags_.size();
  for (size_t i = 0; i < count; ++i) {
    if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= rows)
      fail("gradient rows: token id ", ids[i], " at position ", i, ", expected 0..", rows - 1);
    flags_[static_cast<size_t>(ids[i])] = 1;
  }
}

size_t SparseRows::pack(float* table) {
  union_.clear();
  for (size_t r = 0; r < flags_.size(); ++r)
    if (flags_[r]) union_.push_back(static_cast<int32_t>(r));
  const size_t bytes = width_ * sizeof(float);
  // Slot k <= union_[k], and every slot below k was written already: no row is overwritten unread.
  for (size_t k = 0; k < union_.size(); ++k)
    if (static_cast<size_t>(union_[k]) != k) std::memcpy(table + k * width_, table + union_[k] * width_, bytes);
  return union_.size();
}

void SparseRows::unpack(float* table) {
  const size_t bytes = width_ * sizeof(float);
  // Last first: slot union_[k] >= k is either packed slot k itself or a packed slot already moved out.
  for (size_t k = union_.size(); k-- > 0;)
    if (static_cast<size_t>(union_[k]) != k) std::memcpy(table + union_[k] * width_, table + k * width_, bytes);
  // Packed slots whose own row no rank touched held zeros before pack: zeros again.
  for (size_t s = 0; s < union_.size(); ++s)
    if (!flags_[s]) std::memset(table + s * width_, 0, bytes);
}

void SparseRows::clear() {
  std::fill(flags_.begin(), flags_.end(), 0);
  union_.clear();
}

}  // namespace cpuft
