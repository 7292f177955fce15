// Counter-based random numbers: each draw is a pure function of (seed, index, stream), so a
// trial's value for a parameter does not depend on the order parameters are drawn in, on the
// other parameters, or on the standard library (std::uniform_real_distribution is not the
// same everywhere). Bits from SplitMix64's finalizer, chained over the three inputs.
#pragma once

#include <cstdint>
#include <string_view>

namespace traindeck {

// Streams for purposes that are not a parameter.
inline constexpr std::uint64_t kSobolShiftStream = 0x50b01;

// 64 well-mixed bits for (seed, index, stream).
std::uint64_t seededBits(std::uint64_t seed, std::uint64_t index, std::uint64_t stream);

// Uniform in [0, 1), with 53 random bits.
double seededUniform(std::uint64_t seed, std::uint64_t index, std::uint64_t stream);

// FNV-1a, 64 bits: the same on every machine and in every version. A parameter's stream is
// the hash of its config key; a trial's identity the hash of its settings (trial_params.h).
std::uint64_t stableHash64(std::string_view text);

}  // namespace traindeck
