// Sobol's quasi-random sequence in up to kSobolDimensions dimensions, from Joe and Kuo's
// direction numbers (new-joe-kuo-6.21201, 2008), 32 bits per coordinate, points in Gray-code
// order (as Joe and Kuo's and SciPy's generators give them). Optionally scrambled by a random
// digital shift: every coordinate XORed with a per-dimension 32-bit word drawn from a seed,
// which keeps the sequence's balance (each 2^k consecutive points from the start still fill
// every interval of width 2^-k in each dimension once) while moving it off the corners.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace traindeck {

inline constexpr std::size_t kSobolDimensions = 21;

class SobolSequence {
 public:
  // `dimensions` from 1 to kSobolDimensions; `shiftSeed`: scramble with a digital shift drawn
  // from it; nullopt: the plain sequence, whose first point is all zeros.
  explicit SobolSequence(std::size_t dimensions, std::optional<std::uint64_t> shiftSeed = std::nullopt);

  // The point with this index, each coordinate in [0, 1). Any index, in any order.
  std::vector<double> point(std::uint32_t index) const;

  std::size_t dimensions() const { return m_directions.size(); }

 private:
  std::vector<std::vector<std::uint32_t>> m_directions;  // [dimension][bit]: v_1 .. v_32
  std::vector<std::uint32_t> m_shift;                    // per dimension; zeros when not scrambled
};

}  // namespace traindeck
