#include "export/export_defaults.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace traindeck {

namespace fs = std::filesystem;

namespace {

std::string lowered(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// `path` as an absolute path with symbolic links resolved as far as it exists.
fs::path resolved(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) p = fs::absolute(path, ec).lexically_normal();
  return p.has_filename() ? p : p.parent_path();  // "presets/" is "presets"
}

bool isInside(const fs::path& path, const fs::path& dir) {
  const auto [end, _] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return end == dir.end();
}

}  // namespace

std::string suggestedPlace(const RunConfig& config, const std::string& source) {
  const std::string said = lowered(source + " " + config.name);
  if (said.find("kaggle") != std::string::npos) return "kaggle-t4x2";
  if (said.find("colab") != std::string::npos) return "colab-gpu";
  if (config.strategy.worldSize() == 1 && config.strategy.device != DeviceKind::Cpu) return "colab-gpu";
  return "vm";
}

std::string defaultExportDir(const std::string& jobFile, const std::vector<std::string>& presetDirs,
                             const std::string& dataDir) {
  if (!jobFile.empty()) {
    const fs::path folder = resolved(jobFile).parent_path();
    const bool inPresets = std::any_of(presetDirs.begin(), presetDirs.end(),
                                       [&](const std::string& dir) { return isInside(folder, resolved(dir)); });
    std::error_code ec;
    if (!inPresets && fs::is_directory(folder, ec) && ::access(folder.c_str(), W_OK) == 0) return folder.string();
  }
  return (fs::path(dataDir) / "exports").string();
}

}  // namespace traindeck
