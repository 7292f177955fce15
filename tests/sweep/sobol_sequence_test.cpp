// The Sobol sequence against its published first points, and its balance in every
// dimension we have direction numbers for, plain and digitally shifted.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <stdexcept>

#include "sweep/sobol_sequence.h"

namespace traindeck {
namespace {

// Whether points [0, 2^k) put one coordinate in each interval [j/2^k, (j+1)/2^k) in `dimension`.
bool balanced(const SobolSequence& sobol, std::size_t dimension, int k) {
  std::set<long> cells;
  const std::uint32_t count = 1u << k;
  for (std::uint32_t i = 0; i < count; ++i) cells.insert(std::lround(std::floor(sobol.point(i)[dimension] * count)));
  return cells.size() == count;
}

TEST(SobolSequence, FirstPointsAreTheKnownOnes) {
  // Joe and Kuo's sequence in Gray-code order, as SciPy's Sobol(d=2, scramble=False) gives it.
  const double expected[8][2] = {{0, 0},         {0.5, 0.5},     {0.75, 0.25},   {0.25, 0.75},
                                 {0.375, 0.375}, {0.875, 0.875}, {0.625, 0.125}, {0.125, 0.625}};
  const SobolSequence sobol(2);
  for (std::uint32_t i = 0; i < 8; ++i) {
    const std::vector<double> point = sobol.point(i);
    EXPECT_NEAR(point[0], expected[i][0], 1e-12) << i;
    EXPECT_NEAR(point[1], expected[i][1], 1e-12) << i;
  }
  // Dimension 3 (s = 2, a = 1, m = 1, 3): m3 = 2*m2 ^ 4*m1 ^ m1 = 3, so v = 1/2, 3/4, 3/8.
  EXPECT_NEAR(SobolSequence(3).point(1)[2], 0.5, 1e-12);
  EXPECT_NEAR(SobolSequence(3).point(3)[2], 0.75, 1e-12);   // gray(3) = 2: v2
  EXPECT_NEAR(SobolSequence(3).point(7)[2], 0.375, 1e-12);  // gray(7) = 4: v3
}

TEST(SobolSequence, EveryDimensionIsBalanced) {
  const SobolSequence plain(kSobolDimensions);
  const SobolSequence shifted(kSobolDimensions, 42);
  for (std::size_t d = 0; d < kSobolDimensions; ++d)
    for (int k = 1; k <= 10; ++k) {
      EXPECT_TRUE(balanced(plain, d, k)) << "dimension " << d + 1 << ", 2^" << k << " points";
      EXPECT_TRUE(balanced(shifted, d, k)) << "shifted, dimension " << d + 1 << ", 2^" << k << " points";
    }
}

TEST(SobolSequence, AShiftMovesEveryPointAndDependsOnTheSeed) {
  const SobolSequence plain(4), a(4, 1), b(4, 2);
  EXPECT_NE(a.point(0), plain.point(0));
  EXPECT_NE(a.point(0), b.point(0));
  EXPECT_EQ(a.point(5), SobolSequence(4, 1).point(5));
  for (double x : a.point(123)) EXPECT_TRUE(x >= 0 && x < 1);
}

TEST(SobolSequence, RefusesDimensionsItHasNoNumbersFor) {
  EXPECT_THROW(SobolSequence(0), std::invalid_argument);
  EXPECT_THROW(SobolSequence(kSobolDimensions + 1), std::invalid_argument);
}

}  // namespace
}  // namespace traindeck
