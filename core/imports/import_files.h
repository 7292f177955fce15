// File helpers the importers share: whole-file reads that throw ImportError with the path, a
// folder's entries in name order, and YAML or JSON values flattened into config pairs.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "imports/run_builder.h"

namespace traindeck {

class JsonValue;

std::string readFileBytes(const std::filesystem::path& file);
// The folder's entries sorted by name; empty when it cannot be listed.
std::vector<std::filesystem::path> sortedEntries(const std::filesystem::path& folder);
bool isDirectory(const std::filesystem::path& path);
bool isRegularFile(const std::filesystem::path& path);

// The complete lines of a whole file's `bytes`, numbered from 1, each without its "\n", "\r\n"
// or "\r\r\n" (Windows text mode over "\r\n"), the first without a UTF-8 byte order mark; empty
// ones are counted but not handed out. onLine(line, number) returns false to stop.
// Returns whether an unterminated last line was left (a file still being written).
template <class OnLine>
bool forEachCompleteLine(std::string_view bytes, OnLine&& onLine) {
  std::size_t at = bytes.starts_with("\xEF\xBB\xBF") ? 3 : 0, number = 0;
  while (at < bytes.size()) {
    const std::size_t end = bytes.find('\n', at);
    if (end == std::string_view::npos) return true;
    ++number;
    std::string_view line = bytes.substr(at, end - at);
    at = end + 1;
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty() && !onLine(line, number)) return false;
  }
  return false;
}

// Leaves of a JSON object as "a.b" = text (strings bare, other values as JSON) into `into`;
// objects nested deeper than a few levels are kept whole.
void addJsonConfig(const JsonValue& object, RunBuilder& into, const std::string& prefix = {});
// The same for a YAML file's mapping; a file that is not YAML adds a problem, not an error.
void addYamlConfig(const std::filesystem::path& file, RunBuilder& into);

}  // namespace traindeck
