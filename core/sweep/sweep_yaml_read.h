// Internal to core/sweep: reading sweep.yaml's scalars and maps with a Diagnostic at the node
// for every way they can be wrong. Each reader returns nullopt after reporting a problem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/diagnostic.h"
#include "config/yaml_diagnostic.h"

namespace traindeck::sweep_yaml {

// "'abc'", "a list", "a map", "nothing": the value as the user wrote it, for messages.
std::string describe(const YAML::Node& node);

// Keys written twice, and keys that are not plain names, at the key.
void reportDuplicateKeys(const YAML::Node& map, const std::string& path, Diagnostics& out);
// Those, and unknown keys (with "did you mean ...?"), at the key.
void checkKeys(const YAML::Node& map, const std::string& path, const std::vector<std::string>& allowed,
               Diagnostics& out);

// A map with only `keys`; when `node` is not a map, a problem with `example` as the hint and false.
bool readMap(const YAML::Node& node, const std::string& path, const std::vector<std::string>& keys,
             const std::string& example, Diagnostics& out);

// A whole number at least `min`; 1e9 reads as 1000000000.
std::optional<std::int64_t> readWhole(const YAML::Node& node, const std::string& path, std::int64_t min,
                                      Diagnostics& out);
std::optional<double> readNumber(const YAML::Node& node, const std::string& path, Diagnostics& out);
std::optional<bool> readFlag(const YAML::Node& node, const std::string& path, Diagnostics& out);
// Plain text, not empty.
std::optional<std::string> readText(const YAML::Node& node, const std::string& path, Diagnostics& out);
// One of `names`, e.g. {"grid", "random", "sobol"}; the message lists them.
std::optional<std::string> readName(const YAML::Node& node, const std::string& path,
                                    const std::vector<std::string>& names, Diagnostics& out);

// "a, b or c".
std::string listOfNames(const std::vector<std::string>& names);

}  // namespace traindeck::sweep_yaml
