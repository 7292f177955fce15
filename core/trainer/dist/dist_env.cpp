#include "dist_env.h"

#include <cstdlib>
#include <stdexcept>

namespace traindeck {

namespace {

int integerVariable(const std::function<std::optional<std::string>(const std::string&)>& lookup,
                    const std::string& name, int fallback, int minimum) {
  const auto text = lookup(name);
  if (!text || text->empty()) return fallback;
  char* end = nullptr;
  const long value = std::strtol(text->c_str(), &end, 10);
  if (*end != '\0' || value < minimum || value > 1 << 20)
    throw std::runtime_error(name + "=" + *text + " is not a valid value (a whole number, " + std::to_string(minimum) +
                             " or more)");
  return static_cast<int>(value);
}

}  // namespace

DistEnv distEnvFrom(const std::function<std::optional<std::string>(const std::string&)>& lookup) {
  DistEnv env;
  env.worldSize = integerVariable(lookup, "WORLD_SIZE", 1, 1);
  env.rank = integerVariable(lookup, "RANK", 0, 0);
  env.localWorldSize = integerVariable(lookup, "LOCAL_WORLD_SIZE", env.worldSize, 1);
  env.localRank = integerVariable(lookup, "LOCAL_RANK", env.rank % env.localWorldSize, 0);
  env.masterPort = integerVariable(lookup, "MASTER_PORT", 0, 0);
  if (const auto addr = lookup("MASTER_ADDR"); addr && !addr->empty()) env.masterAddr = *addr;
  if (env.rank >= env.worldSize)
    throw std::runtime_error("RANK=" + std::to_string(env.rank) +
                             " is not below WORLD_SIZE=" + std::to_string(env.worldSize));
  if (env.localRank >= env.localWorldSize)
    throw std::runtime_error("LOCAL_RANK=" + std::to_string(env.localRank) +
                             " is not below LOCAL_WORLD_SIZE=" + std::to_string(env.localWorldSize));
  if (env.worldSize > 1 && (env.masterPort <= 0 || env.masterPort > 65535))
    throw std::runtime_error("MASTER_PORT must be set to a TCP port when WORLD_SIZE is " +
                             std::to_string(env.worldSize));
  return env;
}

DistEnv distEnvFromProcess() {
  return distEnvFrom([](const std::string& name) -> std::optional<std::string> {
    if (const char* value = std::getenv(name.c_str())) return std::string(value);
    return std::nullopt;
  });
}

}  // namespace traindeck
