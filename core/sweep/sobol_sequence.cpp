// Direction numbers by Bratley and Fox's recurrence from each dimension's primitive polynomial
// (degree s, coefficients a) and initial values m_1..m_s, as Joe and Kuo describe.
#include "sobol_sequence.h"

#include <stdexcept>
#include <string>

#include "seeded_uniform.h"

namespace traindeck {

namespace {

struct DirectionRow {
  unsigned degree;           // s
  unsigned coefficients;     // a
  std::uint32_t initial[7];  // m_1 .. m_s
};

// Dimensions 2 .. 21 of new-joe-kuo-6.21201 (dimension 1 is van der Corput's: all m_i = 1).
constexpr DirectionRow kRows[kSobolDimensions - 1] = {
    {1, 0, {1}},
    {2, 1, {1, 3}},
    {3, 1, {1, 3, 1}},
    {3, 2, {1, 1, 1}},
    {4, 1, {1, 1, 3, 3}},
    {4, 4, {1, 3, 5, 13}},
    {5, 2, {1, 1, 5, 5, 17}},
    {5, 4, {1, 1, 5, 5, 5}},
    {5, 7, {1, 1, 7, 11, 19}},
    {5, 11, {1, 1, 5, 1, 1}},
    {5, 13, {1, 1, 1, 3, 11}},
    {5, 14, {1, 3, 5, 5, 31}},
    {6, 1, {1, 3, 3, 9, 7, 49}},
    {6, 13, {1, 1, 1, 15, 21, 21}},
    {6, 16, {1, 3, 1, 13, 27, 49}},
    {6, 19, {1, 1, 1, 15, 7, 5}},
    {6, 22, {1, 3, 1, 15, 13, 25}},
    {6, 25, {1, 1, 5, 5, 19, 61}},
    {7, 1, {1, 3, 7, 11, 23, 15, 103}},
    {7, 4, {1, 3, 7, 13, 13, 15, 69}},
};

constexpr unsigned kBits = 32;

std::vector<std::uint32_t> firstDimension() {
  std::vector<std::uint32_t> v(kBits);
  for (unsigned i = 0; i < kBits; ++i) v[i] = std::uint32_t{1} << (kBits - 1 - i);
  return v;
}

std::vector<std::uint32_t> directionsFor(const DirectionRow& row) {
  const unsigned s = row.degree;
  std::vector<std::uint32_t> v(kBits);
  for (unsigned i = 0; i < kBits && i < s; ++i) v[i] = row.initial[i] << (kBits - 1 - i);
  for (unsigned i = s; i < kBits; ++i) {
    v[i] = v[i - s] ^ (v[i - s] >> s);
    for (unsigned k = 1; k < s; ++k)
      if ((row.coefficients >> (s - 1 - k)) & 1u) v[i] ^= v[i - k];
  }
  return v;
}

}  // namespace

SobolSequence::SobolSequence(std::size_t dimensions, std::optional<std::uint64_t> shiftSeed) {
  if (dimensions < 1 || dimensions > kSobolDimensions)
    throw std::invalid_argument("SobolSequence: " + std::to_string(dimensions) + " dimensions; 1 to " +
                                std::to_string(kSobolDimensions) + " are possible");
  m_directions.push_back(firstDimension());
  for (std::size_t d = 1; d < dimensions; ++d) m_directions.push_back(directionsFor(kRows[d - 1]));
  m_shift.assign(dimensions, 0);
  if (shiftSeed)
    for (std::size_t d = 0; d < dimensions; ++d)
      m_shift[d] = static_cast<std::uint32_t>(seededBits(*shiftSeed, d, kSobolShiftStream) >> 32);
}

std::vector<double> SobolSequence::point(std::uint32_t index) const {
  const std::uint32_t gray = index ^ (index >> 1);
  std::vector<double> coordinates(m_directions.size());
  for (std::size_t d = 0; d < m_directions.size(); ++d) {
    std::uint32_t x = m_shift[d];
    for (unsigned bit = 0; bit < kBits; ++bit)
      if ((gray >> bit) & 1u) x ^= m_directions[d][bit];
    coordinates[d] = static_cast<double>(x) * 0x1.0p-32;
  }
  return coordinates;
}

}  // namespace traindeck
