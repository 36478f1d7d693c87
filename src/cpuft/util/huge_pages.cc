#include "cpuft/util/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>
#include <fstream>

namespace cpuft {

bool advise_huge_pages(void* p, size_t bytes) {
  constexpr uintptr_t kPage = 4096, kHugePage = uintptr_t{2} << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kPage - 1) / kPage * kPage;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) / kPage * kPage;
  // A range holding no whole huge page cannot get one.
  if (!p || end <= begin || (end / kHugePage * kHugePage) <= (begin + kHugePage - 1) / kHugePage * kHugePage)
    return false;
  return ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) == 0;
}

std::string huge_page_mode_of(const std::string& setting) {
  const size_t open = setting.find('['), close = setting.find(']', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return "";
  return setting.substr(open + 1, close - open - 1);
}

std::string huge_page_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!in || !std::getline(in, line) || line.size() > 256) return "";
  return huge_page_mode_of(line);
}

std::string describe_huge_pages() {
  const std::string mode = huge_page_mode();
  if (mode == "always") return "transparent huge pages: always (the large buffers get 2 MiB pages)";
  if (mode == "madvise") return "transparent huge pages: madvise (cpuft asks for them for its large buffers)";
  if (mode == "never")
    return "transparent huge pages: never (4 KiB pages, a few percent slower; as root, echo madvise > "
           "/sys/kernel/mm/transparent_hugepage/enabled lets cpuft ask for them)";
  return "transparent huge pages: not offered by this kernel (4 KiB pages)";
}

}  // namespace cpuft
