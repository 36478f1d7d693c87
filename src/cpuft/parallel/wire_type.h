// The element type of gradients on the wire of the allreduce: one choice, made by --allreduce_dtype
// (cpuft train, cpuft bench) and used as it is by the communicator and the gradient buckets.
#pragma once

namespace cpuft {

enum class WireType {
  kF32,   // exact f32 sums (default)
  kBf16,  // half the bytes; sums carry bf16 precision (see bf16_wire.h)
};

// "f32" / "bf16", the flag's spelling.
inline const char* wire_type_name(WireType w) { return w == WireType::kBf16 ? "bf16" : "f32"; }

}  // namespace cpuft
