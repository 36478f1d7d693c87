// The gradient of an embedding table summed as rows, not as a table. A training step touches only the
// rows of the tokens in its batches (a few thousand of BERT's 30,522 word rows); every other row's
// gradient is exactly zero on every rank, so summing the union of the touched rows gives the same
// table as summing all of it. The word embeddings are 94 MB of DistilBERT's 265 MB of gradients and
// are finished last by backward, so sent whole they are the part of the allreduce that nothing hides.
//
// Per step: note() the token ids of each batch before its forward; the ranks agree on the union of
// their rows by a max-allreduce of one flag byte per row (started early, it is done long before
// backward ends); pack() moves the union's rows, ascending, to the front of the table in place
// (row k of the union goes to slot k <= its row), the caller sums those `count x width` floats, and
// unpack() moves them back and zeroes the slots that only held packed rows. No allocation per step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cpuft {

class SparseRows {
 public:
  SparseRows(size_t rows, size_t width);

  size_t rows() const { return flags_.size(); }
  size_t width() const { return width_; }

  // This rank's batch uses rows ids[0..count); throws naming the id when one is outside the table.
  void note(const int32_t* ids, size_t count);
  // The flag bytes to max-reduce over ranks (1 = some rank touched the row).
  uint8_t* flags() { return flags_.data(); }
  // With the flags reduced: moves the union's rows to the front of `table`; returns how many.
  size_t pack(float* table);
  // After the packed rows were summed: puts them back in place; the table is then the sum.
  void unpack(float* table);
  // Forgets the rows of this step.
  void clear();

 private:
  size_t width_;
  std::vector<uint8_t> flags_;
  std::vector<int32_t> union_;  // rows of the union, ascending (capacity: every row)
};

}  // namespace cpuft
