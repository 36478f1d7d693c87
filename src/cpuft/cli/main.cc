// cpuft command line: dispatches to the subcommands.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "cpuft/cpu/features.h"
#include "cpuft/util/error.h"

namespace {

const char* kUsage =
    "usage: cpuft <command> [flags]\n"
    "\n"
    "commands:\n"
    "  doctor    print what cpuft sees on this machine (CPU, ISA, oneDNN, threads)\n"
    "  --version print the version\n";

int cmd_doctor() {
  std::printf("cpuft %s\n", CPUFT_VERSION);
  std::printf("cpu: %s\n", cpuft::describe_cpu().c_str());
  std::printf("kernels: %s\n", cpuft::isa_name(cpuft::kernel_isa()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
      std::fputs(kUsage, argc < 2 ? stderr : stdout);
      return argc < 2 ? 2 : 0;
    }
    std::string cmd = argv[1];
    if (cmd == "--version") {
      std::printf("cpuft %s\n", CPUFT_VERSION);
      return 0;
    }
    if (cmd == "doctor") return cmd_doctor();
    std::fprintf(stderr, "cpuft: unknown command '%s'\n%s", cmd.c_str(), kUsage);
    return 2;
  } catch (const cpuft::Error& e) {
    std::fprintf(stderr, "cpuft: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cpuft: internal error: %s\n", e.what());
    return 3;
  }
}
