// The dtype strings of the safetensors format and their element sizes (docs/parity.md, Files).
#pragma once

#include <cstdint>
#include <string>

#include "cpuft/io/safetensors.h"

namespace cpuft {

struct StDtypeInfo {
  StDtype dtype;  // OTHER for formats cpuft knows but never converts (F8_*, F4, F6_*, C64)
  int bits;       // bits per element
  int rank;       // position in the reference writer's enumeration; it sorts by descending rank
};

// Looks up a header dtype string; returns false when the string is not a safetensors dtype.
bool lookup_st_dtype(const std::string& name, StDtypeInfo* info);

// The header string of a dtype cpuft writes (F32, BF16, I64, I8).
const char* st_dtype_name(StDtype dtype);

// All dtype strings, for error messages: "BOOL, U8, ...".
const char* st_dtype_list();

}  // namespace cpuft
