// Expansion is textual and single-pass: a variable's value is not expanded again.
#include "path_expand.h"

#include <cstdlib>
#include <filesystem>

namespace traindeck {

EnvLookup processEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    if (const char* value = std::getenv(name.c_str())) return std::string(value);
    return std::nullopt;
  };
}

std::string defaultDataDir(const EnvLookup& env) {
  if (auto xdg = env("XDG_DATA_HOME"); xdg && !xdg->empty()) return *xdg + "/traindeck";
  const auto home = env("HOME");
  return (home ? *home : std::string(".")) + "/.local/share/traindeck";
}

ExpandedPath expandPath(const std::string& path, const std::string& baseDir, const EnvLookup& env) {
  ExpandedPath result;
  std::string out;
  std::size_t i = 0;
  if (path == "~" || path.rfind("~/", 0) == 0) {
    const auto home = env("HOME");
    if (!home) result.error = "starts with ~, but HOME is not set";
    out = home.value_or("");
    i = 1;
  }
  while (i < path.size()) {
    if (path.compare(i, 2, "${") == 0) {
      const std::size_t close = path.find('}', i + 2);
      if (close == std::string::npos) {
        result.error = "has ${ without a closing }";
        out += path.substr(i);
        break;
      }
      const std::string name = path.substr(i + 2, close - i - 2);
      auto value = env(name);
      if (!value && name == "TRAINDECK_DATA") value = defaultDataDir(env);
      if (!value && result.error.empty()) result.error = "uses ${" + name + "}, which is not set";
      out += value.value_or("");
      i = close + 1;
    } else {
      out += path[i++];
    }
  }
  std::filesystem::path p(out);
  if (!out.empty() && p.is_relative()) p = std::filesystem::path(baseDir) / p;
  result.path = p.lexically_normal().string();
  return result;
}

bool isGlob(const std::string& path) { return path.find_first_of("*?[") != std::string::npos; }

}  // namespace traindeck
