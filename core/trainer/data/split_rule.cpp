// The split rule: the top 53 bits of mix64(index) as a uniform number in [0, 1).
#include "trainer/data/split_rule.h"

namespace traindeck {

std::uint64_t mix64(std::uint64_t value) {
  value += 0x9E3779B97F4A7C15ULL;
  value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ULL;
  value = (value ^ (value >> 27)) * 0x94D049BB133111EBULL;
  return value ^ (value >> 31);
}

bool isValidationDocument(std::uint64_t documentIndex, double fraction) {
  if (fraction <= 0) return false;
  if (documentIndex == 0) return false;
  if (documentIndex == 1) return true;
  const double uniform = static_cast<double>(mix64(documentIndex) >> 11) * 0x1.0p-53;
  return uniform < fraction;
}

}  // namespace traindeck
