// A Diagnostic at a YAML node's place, for any reader of YAML files (configs, sweeps): yaml-cpp's
// marks are 0-based, a Diagnostic's line and column 1-based; a node without a mark gives none.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "diagnostic.h"

namespace traindeck {

Diagnostic diagnosticAt(const YAML::Node& node, std::string path, std::string message, std::string hint = {},
                        Severity severity = Severity::Error);

}  // namespace traindeck
