// A fast 64-bit hash of bytes, fed in pieces: the metrics cache's checksum (a cache file cut short
// or changed on disk is told from a whole one) and its fingerprint of metrics.jsonl's sampled
// bytes. Not for security: anyone who can write the cache can write its checksum too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace traindeck {

class BytesHasher {
 public:
  explicit BytesHasher(std::uint64_t seed = 0);
  // The bytes after those added so far; the value depends on the bytes, not on how they were cut.
  void add(const void* data, std::size_t size);
  void add(std::string_view bytes) { add(bytes.data(), bytes.size()); }
  std::uint64_t value() const;

 private:
  void addBlock(const unsigned char* block);  // kBlockBytes of them
  static constexpr std::size_t kLanes = 4, kBlockBytes = 8 * kLanes;
  std::uint64_t m_lane[kLanes];
  unsigned char m_pending[kBlockBytes];  // the start of a block not yet whole
  std::size_t m_pendingBytes = 0;
  std::uint64_t m_total = 0;
};

inline std::uint64_t hashBytes(std::string_view bytes, std::uint64_t seed = 0) {
  BytesHasher hasher(seed);
  hasher.add(bytes);
  return hasher.value();
}

}  // namespace traindeck
