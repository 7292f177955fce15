// Fresh memory costs a page fault per 4 KiB on its first write; in a virtual machine each can
// take 10 µs or more (measured 12-16 µs on the 2-core EPYC VM: 30 ms for one 8 MB column of a
// million doubles, more than the work on it). Buffers of a million points that are about to be
// written whole are advised to Linux as huge-page candidates (transparent huge pages in their
// "madvise" mode), so they fault 2 MiB at a time. Advice only: elsewhere nothing changes.
#pragma once

#include <cstddef>
#include <vector>

namespace traindeck {

// Advises the whole 2 MiB pages inside [data, data + bytes); nothing for small buffers.
void adviseHugePages(const void* data, std::size_t bytes);

// reserve(n), the new room advised before anything is written to it.
template <class T>
void reserveHuge(std::vector<T>& v, std::size_t n) {
  if (n <= v.capacity()) return;
  v.reserve(n);
  adviseHugePages(v.data(), v.capacity() * sizeof(T));
}

}  // namespace traindeck
