// Edit distance and "did you mean" suggestions.
#include <gtest/gtest.h>

#include "config/suggest.h"

namespace traindeck {
namespace {

TEST(Suggest, EditDistance) {
  EXPECT_EQ(editDistance("", ""), 0u);
  EXPECT_EQ(editDistance("abc", ""), 3u);
  EXPECT_EQ(editDistance("micro_batch", "micro_bacth"), 1u);  // transposition
  EXPECT_EQ(editDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(editDistance("BF16", "bf16"), 0u);
}

TEST(Suggest, ClosestMatchOnlyForLikelyTypos) {
  const std::vector<std::string> keys = {"micro_batch", "grad_accum", "nproc_per_node"};
  EXPECT_EQ(closestMatch("micro_bach", keys), "micro_batch");
  EXPECT_EQ(closestMatch("gradaccum", keys), "grad_accum");
  EXPECT_FALSE(closestMatch("learning_rate", keys).has_value());
  EXPECT_FALSE(closestMatch(std::string(1000, 'x'), keys).has_value());
}

}  // namespace
}  // namespace traindeck
