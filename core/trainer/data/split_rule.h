// Which split a document goes to: a fixed hash of its index (counted from 0 across all input
// files, in order) against the validation fraction, so the same inputs always split the same
// way, whatever the number of threads. With a fraction above 0, document 0 always goes to train
// and document 1 always to val, so any corpus of two or more documents has both splits.
#pragma once

#include <cstdint>

namespace traindeck {

// `fraction` in [0, 1): the expected share of documents in the validation split.
bool isValidationDocument(std::uint64_t documentIndex, double fraction);

// A well-mixed 64-bit hash (splitmix64's finaliser); also seeds the loader's epoch offsets.
std::uint64_t mix64(std::uint64_t value);

}  // namespace traindeck
