// Transparent huge pages for the large buffers (weights, gradients, optimizer moments, activations).
// Their access patterns stride across pages (a head's rows of the q, k, v activations are 4.5 KiB apart
// at hidden 768, bf16), and the training and evaluation steps run 2-5% faster on 2 MiB pages than on
// 4 KiB ones (docs/performance.md, "Huge pages"). Where the system leaves huge pages to the program
// (THP "madvise", a common distribution default) the buffers ask for them (util/aligned_vector.h's
// allocator); "always" gives them anyway, "never" refuses.
#pragma once

#include <cstddef>
#include <string>

namespace cpuft {

// Asks the kernel to back the whole 4 KiB pages of [p, p + bytes) with transparent huge pages
// (madvise MADV_HUGEPAGE). Pages already touched stay as they are: call it before the first write.
// Returns whether the hint was taken (false where the kernel has no THP, or for a range without a
// whole 2 MiB page); a refused hint changes nothing else.
bool advise_huge_pages(void* p, size_t bytes);

// The system's transparent-huge-page mode: the bracketed word of `setting` (the text of
// /sys/kernel/mm/transparent_hugepage/enabled, as "always [madvise] never"), or "" when there is none.
std::string huge_page_mode_of(const std::string& setting);
// This machine's mode ("always", "madvise" or "never"), "" where the kernel has no transparent huge pages.
std::string huge_page_mode();
// One line for cpuft doctor: the mode and what it means for cpuft's buffers.
std::string describe_huge_pages();

}  // namespace cpuft
