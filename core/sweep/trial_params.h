// One trial of a sweep: the config keys it sets, the seed of its repeat, and its identity,
// which follows from those alone, so that planning the same sweep again (after a crash, a
// reboot, a change of budget) finds the same trials by id and never runs one twice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "param_value.h"

namespace traindeck {

struct TrialParams {
  ParamSettings settings;            // in the sweep's parameter order; only those whose condition holds
  std::string seedKey;               // the config key a repeat sets ("seed"); empty without repeats
  std::optional<std::int64_t> seed;  // that key's value
  std::string id;                    // trialId(): 16 hex digits
  std::string name;                  // trialName(): "lr=3e-4 n_embd=256 s1"
  bool operator==(const TrialParams&) const = default;
};

// A hash (FNV-1a, 64 bits) of the settings in key order, each typed and exact
// (paramValueCanonical), and of the repeat's seed: the same on every machine and in every
// version that keeps sweep.json's schema.
std::string trialId(const ParamSettings& settings, const std::string& seedKey, std::optional<std::int64_t> seed);

// Readable and safe in a file name: each setting as <last part of its key>=<short value>
// (the whole key where two parameters share a last part), then s<seed>; characters other
// than letters, digits and . _ = + - become '-'; at most kMaxTrialNameBytes. Not unique
// (3.0001e-4 and 3.0002e-4 both show 3e-4): trialFolderName is.
inline constexpr std::size_t kMaxTrialNameBytes = 96;
std::string trialName(const ParamSettings& settings, std::optional<std::int64_t> seed);

// The name with spaces as '_' and the id's first 8 digits: "lr=3e-4_n_embd=256_s1-9f0c21aa".
std::string trialFolderName(const TrialParams& trial);

// Fills id and name from the rest.
TrialParams makeTrial(ParamSettings settings, const std::string& seedKey, std::optional<std::int64_t> seed);

}  // namespace traindeck
