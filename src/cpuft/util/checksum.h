// XXH64 checksums (the xxHash 64-bit algorithm, as `xxhsum -H1` prints it): what a checkpoint records
// of its files, and of the tokenizer and training data it was made from, so that a file cut short,
// replaced or belonging to another run is found before it is used. A checksum against accidents, not
// a signature: whoever can write the files can also rewrite what is recorded of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cpuft {

// Incremental XXH64: update() with the bytes in pieces of any size, digest() at any point.
class Xxh64 {
 public:
  explicit Xxh64(uint64_t seed = 0);
  void update(const void* data, size_t bytes);
  uint64_t digest() const;

 private:
  uint64_t v_[4];
  unsigned char buffer_[32];
  size_t buffered_ = 0;
  uint64_t total_ = 0;
  uint64_t seed_;
};

uint64_t xxh64(std::string_view bytes, uint64_t seed = 0);

// 16 lowercase hex digits.
std::string hex64(uint64_t value);

struct FileChecksum {
  uint64_t bytes = 0;
  uint64_t xxh64 = 0;
};

// The size and XXH64 of a regular file, read in blocks; errors (util/read_file.h's) name the path.
FileChecksum file_checksum(const std::string& path);

}  // namespace cpuft
