// libFuzzer target: cpuft_state.json text -> CheckpointState, then the resume check against default
// flags. Bad input must end in one short cpuft::Error line.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cpuft/train/checkpoint.h"
#include "cpuft/train/resume_check.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const cpuft::CheckpointState s = cpuft::parse_checkpoint_state(text, "fuzz/cpuft_state.json");
    if (s.progress.global_step < 0 || s.world_size < 1) std::abort();
    const cpuft::ResumeCheck check = cpuft::check_resume(s, cpuft::TrainArgs{}, 1);
    if (check.refusal.find('\n') != std::string::npos) std::abort();
  } catch (const cpuft::Error& e) {
    cpuft_fuzz::check_error(e);
  }
  return 0;
}
