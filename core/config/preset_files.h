// Job presets are YAML files (resources/presets/*.yaml, installed to share/traindeck/presets).
// A preset can be named wherever a config file is expected.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace traindeck {

// Folders to look in, in order: $TRAINDECK_PRESETS, <exe>/../share/traindeck/presets, and
// `sourceDir` (the source tree's presets, for a program run from its build folder).
std::vector<std::string> presetDirectories(const std::string& executablePath, const std::string& sourceDir);

// Preset names (file stems), sorted, without duplicates.
std::vector<std::string> listPresets(const std::vector<std::string>& dirs);

// `nameOrPath` if it is a file; else the preset of that name (with or without .yaml).
std::optional<std::string> resolveConfigPath(const std::string& nameOrPath, const std::vector<std::string>& dirs);

}  // namespace traindeck
