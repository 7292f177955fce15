// File helpers the importers share: whole-file reads that throw ImportError with the path, a
// folder's entries in name order, and YAML or JSON values flattened into config pairs.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "imports/run_builder.h"

namespace traindeck {

class JsonValue;

std::string readFileBytes(const std::filesystem::path& file);
// The folder's entries sorted by name; empty when it cannot be listed.
std::vector<std::filesystem::path> sortedEntries(const std::filesystem::path& folder);
bool isDirectory(const std::filesystem::path& path);
bool isRegularFile(const std::filesystem::path& path);

// Leaves of a JSON object as "a.b" = text (strings bare, other values as JSON) into `into`;
// objects nested deeper than a few levels are kept whole.
void addJsonConfig(const JsonValue& object, RunBuilder& into, const std::string& prefix = {});
// The same for a YAML file's mapping; a file that is not YAML adds a problem, not an error.
void addYamlConfig(const std::filesystem::path& file, RunBuilder& into);

}  // namespace traindeck
