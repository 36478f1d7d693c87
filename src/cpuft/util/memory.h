// How much memory this process may use, and a check that a size computed from hostile input (a
// config, a batch size) fits in it before anything of that size is allocated.
#pragma once

#include <cstdint>
#include <string>

namespace cpuft {

// The memory this process may use, in bytes: the machine's physical memory, or less where an
// address-space limit (ulimit -v) or a cgroup limit (a container, a Slurm job) says so. 0 when
// nothing can be told.
uint64_t usable_memory_bytes();

// Throws "WHAT needs N GiB of memory, more than the M GiB available to this process" when `bytes`
// exceeds usable_memory_bytes(); `what` starts the message and names the culprit (file and fields,
// or flags).
void check_fits_in_memory(uint64_t bytes, const std::string& what);

}  // namespace cpuft
