// Preset lookup on the file system; the first folder that has a name wins.
#include "preset_files.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace traindeck {

namespace fs = std::filesystem;

std::vector<std::string> presetDirectories(const std::string& executablePath, const std::string& sourceDir) {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("TRAINDECK_PRESETS"); env && *env) dirs.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::weakly_canonical(fs::path(executablePath), ec);
  if (!ec && exe.has_parent_path())
    dirs.push_back((exe.parent_path().parent_path() / "share" / "traindeck" / "presets").string());
  if (!sourceDir.empty()) dirs.push_back(sourceDir);
  return dirs;
}

std::vector<std::string> listPresets(const std::vector<std::string>& dirs) {
  std::set<std::string> names;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".yaml") names.insert(it->path().stem().string());
  }
  return {names.begin(), names.end()};
}

std::optional<std::string> resolveConfigPath(const std::string& nameOrPath, const std::vector<std::string>& dirs) {
  std::error_code ec;
  if (fs::is_regular_file(nameOrPath, ec)) return nameOrPath;
  if (nameOrPath.find('/') != std::string::npos) return std::nullopt;
  const std::string file = nameOrPath.ends_with(".yaml") ? nameOrPath : nameOrPath + ".yaml";
  for (const std::string& dir : dirs) {
    const fs::path candidate = fs::path(dir) / file;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  return std::nullopt;
}

}  // namespace traindeck
