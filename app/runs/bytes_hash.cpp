// Four independent lanes of xor, multiply and rotate over 8-byte words, so that the multiplies
// overlap (about 8 bytes a cycle); each step is invertible, so a changed word always changes its
// lane's final state. The lanes, the length and the tail end in a mix whose every bit depends on
// every input bit.
#include "bytes_hash.h"

#include <bit>
#include <cstring>

namespace traindeck {

namespace {

constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;

std::uint64_t load64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::uint64_t step(std::uint64_t lane, std::uint64_t word) {
  return std::rotl((lane ^ word) * kPrime1, 31);
}

std::uint64_t finalMix(std::uint64_t h) {
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime1;
  h ^= h >> 32;
  return h;
}

}  // namespace

BytesHasher::BytesHasher(std::uint64_t seed) {
  for (std::size_t i = 0; i < kLanes; ++i) m_lane[i] = seed + kPrime2 * (i + 1);
}

void BytesHasher::addBlock(const unsigned char* block) {
  for (std::size_t i = 0; i < kLanes; ++i) m_lane[i] = step(m_lane[i], load64(block + 8 * i));
}

void BytesHasher::add(const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  m_total += size;
  if (m_pendingBytes > 0) {
    const std::size_t take = std::min(size, kBlockBytes - m_pendingBytes);
    std::memcpy(m_pending + m_pendingBytes, p, take);
    m_pendingBytes += take;
    p += take;
    size -= take;
    if (m_pendingBytes < kBlockBytes) return;
    addBlock(m_pending);
    m_pendingBytes = 0;
  }
  // The lanes in locals: the compiler keeps them in registers through the loop.
  std::uint64_t a = m_lane[0], b = m_lane[1], c = m_lane[2], d = m_lane[3];
  for (; size >= kBlockBytes; p += kBlockBytes, size -= kBlockBytes) {
    a = step(a, load64(p));
    b = step(b, load64(p + 8));
    c = step(c, load64(p + 16));
    d = step(d, load64(p + 24));
  }
  m_lane[0] = a;
  m_lane[1] = b;
  m_lane[2] = c;
  m_lane[3] = d;
  std::memcpy(m_pending, p, size);
  m_pendingBytes = size;
}

std::uint64_t BytesHasher::value() const {
  std::uint64_t h = m_total * kPrime2;
  for (std::size_t i = 0; i < kLanes; ++i) h = step(h, m_lane[i]) + std::rotl(m_lane[i], static_cast<int>(7 * i + 1));
  for (std::size_t i = 0; i < m_pendingBytes; ++i) h = step(h, m_pending[i] + (static_cast<std::uint64_t>(i) << 8));
  return finalMix(h);
}

}  // namespace traindeck
