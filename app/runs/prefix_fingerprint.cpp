// Sampled block k is [k * kStride, k * kStride + kBlockBytes); feeding walks only the blocks a
// piece meets, so a 64 MiB read costs 64 small copies, not a pass over its bytes.
#include "prefix_fingerprint.h"

#include <unistd.h>

#include <algorithm>

#include "bytes_hash.h"

namespace traindeck {

namespace {

constexpr std::int64_t kBlock = static_cast<std::int64_t>(PrefixFingerprint::kBlockBytes);

bool readAt(int fd, std::int64_t offset, std::size_t size, std::string& into) {
  into.resize(size);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n =
        ::pread(fd, into.data() + done, size - done, static_cast<off_t>(offset) + static_cast<off_t>(done));
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

void PrefixFingerprint::addSampled(std::string_view part) {
  m_block.append(part);
  if (m_block.size() < kBlockBytes) return;
  m_blocks = hashBytes(m_block, m_blocks);
  m_block.clear();
}

void PrefixFingerprint::feed(std::string_view bytes) {
  const std::int64_t begin = m_bytes, end = begin + static_cast<std::int64_t>(bytes.size());
  for (std::int64_t k = begin / kStride; k * kStride < end; ++k) {
    const std::int64_t from = std::max(begin, k * kStride), to = std::min(end, k * kStride + kBlock);
    if (from < to)
      addSampled(bytes.substr(static_cast<std::size_t>(from - begin), static_cast<std::size_t>(to - from)));
  }
  if (bytes.size() >= kBlockBytes) {
    m_last.assign(bytes.substr(bytes.size() - kBlockBytes));
  } else {
    m_last.append(bytes);
    if (m_last.size() > kBlockBytes) m_last.erase(0, m_last.size() - kBlockBytes);
  }
  m_bytes = end;
}

std::uint64_t PrefixFingerprint::value() const {
  BytesHasher h(m_blocks);
  const std::int64_t sizes[] = {m_bytes, static_cast<std::int64_t>(m_block.size())};
  h.add(sizes, sizeof sizes);
  h.add(m_block);
  h.add(m_last);
  return h.value();
}

std::optional<PrefixFingerprint> PrefixFingerprint::ofFile(int fd, std::int64_t upTo) {
  if (upTo < 0) return std::nullopt;
  PrefixFingerprint f;
  std::string block;
  for (std::int64_t k = 0; k * kStride < upTo; ++k) {
    const std::int64_t from = k * kStride, to = std::min(upTo, from + kBlock);
    if (!readAt(fd, from, static_cast<std::size_t>(to - from), block)) return std::nullopt;
    f.addSampled(block);
  }
  const std::int64_t lastFrom = std::max<std::int64_t>(0, upTo - kBlock);
  if (!readAt(fd, lastFrom, static_cast<std::size_t>(upTo - lastFrom), f.m_last)) return std::nullopt;
  f.m_bytes = upTo;
  return f;
}

}  // namespace traindeck
