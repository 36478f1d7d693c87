// libFuzzer target: trainer_state.json text -> TrainerState, written back as the trainer does at the
// next save (its log_history goes through the Python-compatible JSON writer, which recursed through a
// deep value before nesting was bounded). Bad input must end in one short cpuft::Error line.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "cpuft/train/trainer_state.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const cpuft::TrainerState s = cpuft::TrainerState::from_json(text, "fuzz/trainer_state.json");
    const std::string written = s.to_json();
    // The writer's output reads back (the keys it writes are all there).
    cpuft::TrainerState::from_json(written, "fuzz/written.json");
  } catch (const cpuft::Error& e) {
    cpuft_fuzz::check_error(e);
  }
  return 0;
}
