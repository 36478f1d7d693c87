// libFuzzer target: a safetensors file. The input up to its first NUL byte is the JSON header, the
// rest the data buffer (no NUL: no data); the 8-byte length is written in front, and the file is
// opened with SafetensorsReader as a model file would be. Bad input must end in one short
// cpuft::Error line; an accepted file must hand out every floating-point tensor.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "cpuft/io/safetensors.h"
#include "fuzz_check.h"

namespace {

const std::string& scratch_file() {
  static const std::string path = "/tmp/cpuft-fuzz-" + std::to_string(::getpid()) + ".safetensors";
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string header = input.substr(0, nul);
  const std::string payload = nul == std::string::npos ? std::string() : input.substr(nul + 1);
  std::string file(8, '\0');
  for (int i = 0; i < 8; ++i) file[static_cast<size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  file += header + payload;
  std::ofstream(scratch_file(), std::ios::binary | std::ios::trunc) << file;
  try {
    cpuft::SafetensorsReader st(scratch_file());
    for (const cpuft::StTensorInfo& t : st.tensors()) {
      if (t.end > payload.size() || t.begin > t.end) std::abort();
      if (t.dtype == cpuft::StDtype::kF32 || t.dtype == cpuft::StDtype::kBf16 || t.dtype == cpuft::StDtype::kF16 ||
          t.dtype == cpuft::StDtype::kF64)
        st.read_f32(t.name);
    }
  } catch (const cpuft::Error& e) {
    cpuft_fuzz::check_error(e);
  }
  return 0;
}
