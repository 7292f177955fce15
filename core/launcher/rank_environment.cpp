// Built in the supervisor before fork(), so that the child only has to call execve().
#include "rank_environment.h"

#include <cstring>
#include <unordered_map>

namespace traindeck {

EnvList rankVariables(const RankIdentity& id, const EnvList& extra) {
  EnvList vars = {
      {"RANK", std::to_string(id.rank)},
      {"LOCAL_RANK", std::to_string(id.localRank)},
      {"WORLD_SIZE", std::to_string(id.worldSize)},
      {"LOCAL_WORLD_SIZE", std::to_string(id.localWorldSize)},
      {"GROUP_RANK", std::to_string(id.groupRank)},
      {"MASTER_ADDR", id.masterAddr},
      {"MASTER_PORT", std::to_string(id.masterPort)},
  };
  vars.insert(vars.end(), extra.begin(), extra.end());
  return vars;
}

std::vector<std::string> mergeEnvironment(const char* const* base, const EnvList& overrides) {
  std::unordered_map<std::string, std::string> lastValue;
  for (const auto& [name, value] : overrides) lastValue[name] = value;

  std::vector<std::string> out;
  for (const char* const* entry = base; entry && *entry; ++entry) {
    const char* equals = std::strchr(*entry, '=');
    const std::string name = equals ? std::string(*entry, equals) : std::string(*entry);
    if (!lastValue.count(name)) out.emplace_back(*entry);
  }
  for (const auto& [name, value] : overrides) {
    auto it = lastValue.find(name);
    if (it == lastValue.end()) continue;  // already written (a name given twice)
    out.push_back(name + "=" + it->second);
    lastValue.erase(it);
  }
  return out;
}

}  // namespace traindeck
