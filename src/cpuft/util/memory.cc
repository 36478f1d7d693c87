#include "cpuft/util/memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "cpuft/util/error.h"
#include "cpuft/util/read_file.h"

namespace cpuft {
namespace {

// The smaller of `a` and `b`, where 0 means "no limit known".
uint64_t tighter(uint64_t a, uint64_t b) { return a == 0 ? b : b == 0 ? a : std::min(a, b); }

// cgroup v2 memory.max of this process's cgroup (the root of the mounted hierarchy in a container);
// 0 for "max" or when there is none.
uint64_t cgroup_limit() {
  std::ifstream in("/sys/fs/cgroup/memory.max");
  std::string value;
  if (!(in >> value) || value == "max") return 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(value.c_str(), &end, 10);
  return end && *end == '\0' ? v : 0;
}

}  // namespace

uint64_t usable_memory_bytes() {
  uint64_t bytes = 0;
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) bytes = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
  struct rlimit limit;
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    bytes = tighter(bytes, static_cast<uint64_t>(limit.rlim_cur));
  return tighter(bytes, cgroup_limit());
}

void check_fits_in_memory(uint64_t bytes, const std::string& what) {
  const uint64_t have = usable_memory_bytes();
  if (have > 0 && bytes > have)
    fail(what, " needs ", format_bytes(bytes), " of memory, more than the ", format_bytes(have),
         " available to this process");
}

}  // namespace cpuft
