// Loading a RunConfig from YAML with every problem reported at its line and column, and
// saving one so that it loads back equal. Nothing here throws.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "diagnostic.h"
#include "run_config.h"

namespace traindeck {

struct SourcePlace {
  int line = 0;  // 1-based
  int column = 0;
};

struct LoadedConfig {
  RunConfig config;                           // defaults wherever the file said nothing usable
  std::map<std::string, SourcePlace> places;  // where each key's value stands in the file
  Diagnostics problems;                       // syntax, unknown keys, types, single-value ranges
  std::string source;                         // file name for messages ("<text>" for text)
  std::string baseDir;                        // folder that relative paths are relative to
};

// Files over this size are refused before parsing: a config is a few kilobytes.
inline constexpr std::size_t kMaxConfigBytes = 1 << 20;

// `overrides` are "section.key=value" (value in YAML, e.g. `strategy.nproc_per_node=1`), applied
// over the file as if written in it; a malformed one is a problem like any other.
LoadedConfig loadConfigText(const std::string& text, const std::string& source = "<text>",
                            const std::string& baseDir = ".", const std::vector<std::string>& overrides = {});
LoadedConfig loadConfigFile(const std::string& path, const std::vector<std::string>& overrides = {});

// Every key, defaults included, grouped by section: the fully resolved form of a config.
std::string saveConfigText(const RunConfig& config);
// Writes atomically (temp file + rename). Returns an empty string or the reason it failed.
std::string saveConfigFile(const RunConfig& config, const std::string& path);

}  // namespace traindeck
