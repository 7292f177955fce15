// SplitMix64's output function (Steele, Lea and Flood, 2014), used as a hash of its input.
#include "seeded_uniform.h"

namespace traindeck {

namespace {
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
}  // namespace

std::uint64_t seededBits(std::uint64_t seed, std::uint64_t index, std::uint64_t stream) {
  return mix(mix(mix(seed) ^ index) ^ stream);
}

double seededUniform(std::uint64_t seed, std::uint64_t index, std::uint64_t stream) {
  return static_cast<double>(seededBits(seed, index, stream) >> 11) * 0x1.0p-53;
}

std::uint64_t stableHash64(std::string_view text) {
  std::uint64_t hash = 0xCBF29CE484222325ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001B3ull;
  }
  return hash;
}

}  // namespace traindeck
