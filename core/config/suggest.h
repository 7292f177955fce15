// "Did you mean ...?" for misspelt keys and values: the closest candidate by edit distance.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace traindeck {

// Optimal string alignment distance (Levenshtein plus adjacent transpositions), case-insensitive.
std::size_t editDistance(std::string_view a, std::string_view b);

// The candidate closest to `word`, if it is close enough to be a likely typo.
std::optional<std::string> closestMatch(std::string_view word,
                                        const std::vector<std::string>& candidates);

}  // namespace traindeck
