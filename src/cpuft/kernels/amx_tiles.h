// The AMX tile configuration the kernels use: palette 1 with tiles 0-7 all 16 rows of 64 bytes (16 f32
// or 16 bf16 pair words a row). AMX code: include only from sources compiled with the AMX flags
// (*_amx.cc), and run it only at the amx kernel level (cpu/isa.h), which Linux has granted the tile data.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace cpuft::amx {

constexpr int64_t kTileRows = 16;  // rows of a tile; f32 or pair words in a tile row

struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

inline const TileConfig& whole_tiles() {
  static const TileConfig config = [] {
    TileConfig c;
    for (int t = 0; t < 8; ++t) c.colsb[t] = 64, c.rows[t] = kTileRows;
    return c;
  }();
  return config;
}

}  // namespace cpuft::amx
