// The environment of one rank: the supervisor's own, plus torchrun's variables (RANK,
// LOCAL_RANK, WORLD_SIZE, ...) and the caller's extras. Later entries replace earlier ones.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace traindeck {

using EnvList = std::vector<std::pair<std::string, std::string>>;

struct RankIdentity {
  int rank = 0;
  int localRank = 0;
  int worldSize = 1;
  int localWorldSize = 1;
  int groupRank = 0;  // the node's rank
  std::string masterAddr;
  int masterPort = 0;
};

// The variables one rank gets on top of the base environment, torchrun's names first, then `extra`.
EnvList rankVariables(const RankIdentity& id, const EnvList& extra);

// "NAME=value" strings: `base` (as in environ) with every name in `overrides` replaced or
// added; a name given twice in `overrides` takes its last value.
std::vector<std::string> mergeEnvironment(const char* const* base, const EnvList& overrides);

}  // namespace traindeck
