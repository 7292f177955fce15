// What tells whether metrics.jsonl still begins with the bytes a metrics cache was parsed from:
// a hash of the 4 KiB at every MiB boundary and of the last 4 KiB, taken from the very bytes the
// follower parsed as it reads them, and again from the file when the cache is opened (a few
// hundred small reads for a million records). An append leaves it alike; a truncation, another
// history or a rewritten stretch where it samples does not. Plain C++ and POSIX; one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace traindeck {

class PrefixFingerprint {
 public:
  static constexpr std::int64_t kStride = 1 << 20;
  static constexpr std::size_t kBlockBytes = 4096;

  // The file's next bytes, after those fed so far.
  void feed(std::string_view bytes);
  std::int64_t bytes() const { return m_bytes; }  // fed so far: the prefix it is of
  std::uint64_t value() const;

  // As if bytes [0, upTo) of the open file `fd` had been fed; nullopt when the file is shorter
  // or cannot be read.
  static std::optional<PrefixFingerprint> ofFile(int fd, std::int64_t upTo);

 private:
  void addSampled(std::string_view part);  // the next bytes of the block being sampled

  std::uint64_t m_blocks = 0;  // the whole sampled blocks, hashed in order
  std::string m_block;         // the sampled block being filled
  std::string m_last;          // the last kBlockBytes bytes fed (fewer at first)
  std::int64_t m_bytes = 0;
};

}  // namespace traindeck
