// A trial's id and names. The id must never change for the same settings: sweep.json keys
// trials by it, and a resumed sweep skips the ids it has.
#include <algorithm>
#include <cstdio>
#include <map>

#include "seeded_uniform.h"
#include "trial_params.h"

namespace traindeck {

namespace {

std::string lastPart(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

std::string fileSafe(std::string text) {
  for (char& c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                       c == '_' || c == '=' || c == '+' || c == '-';
    if (!plain) c = '-';
  }
  return text;
}

}  // namespace

std::string trialId(const ParamSettings& settings, const std::string& seedKey, std::optional<std::int64_t> seed) {
  std::map<std::string, std::string> byKey;
  for (const ParamSetting& setting : settings) byKey[setting.key] = paramValueCanonical(setting.value);
  if (seed) byKey[seedKey] = paramValueCanonical(*seed);
  std::string canonical;
  for (const auto& [key, value] : byKey) canonical += key + "=" + value + "\n";
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(stableHash64(canonical)));
  return hex;
}

std::string trialName(const ParamSettings& settings, std::optional<std::int64_t> seed) {
  std::map<std::string, int> lastPartUses;
  for (const ParamSetting& setting : settings) ++lastPartUses[lastPart(setting.key)];
  std::string name;
  for (const ParamSetting& setting : settings) {
    const std::string label = lastPartUses[lastPart(setting.key)] > 1 ? setting.key : lastPart(setting.key);
    name += (name.empty() ? "" : " ") + fileSafe(label + "=" + paramValueShort(setting.value));
  }
  if (seed) name += (name.empty() ? "s" : " s") + std::to_string(*seed);
  if (name.empty()) name = "base";
  if (name.size() > kMaxTrialNameBytes) name.resize(kMaxTrialNameBytes);
  return name;
}

std::string trialFolderName(const TrialParams& trial) {
  std::string folder = trial.name;
  std::replace(folder.begin(), folder.end(), ' ', '_');
  return folder + "-" + trial.id.substr(0, 8);
}

TrialParams makeTrial(ParamSettings settings, const std::string& seedKey, std::optional<std::int64_t> seed) {
  TrialParams trial;
  trial.settings = std::move(settings);
  trial.seedKey = seed ? seedKey : std::string();
  trial.seed = seed;
  trial.id = trialId(trial.settings, trial.seedKey, seed);
  trial.name = trialName(trial.settings, seed);
  return trial;
}

}  // namespace traindeck
