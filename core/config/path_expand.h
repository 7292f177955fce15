// Path fields may say `~/corpus` or `${TRAINDECK_DATA}/demo`: expansion happens when a path is
// used (validation, the trainer), so a saved config keeps what the user wrote.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace traindeck {

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// The process environment.
EnvLookup processEnvironment();

struct ExpandedPath {
  std::string path;   // absolute, or relative to the working directory if baseDir was relative
  std::string error;  // "uses ${FOO}, which is not set"; empty when all went well
};

// `~/x` → $HOME/x; `${NAME}` → the variable; ${TRAINDECK_DATA} defaults to
// $XDG_DATA_HOME/traindeck (~/.local/share/traindeck). Relative paths join baseDir.
ExpandedPath expandPath(const std::string& path, const std::string& baseDir, const EnvLookup& env);

// The default of ${TRAINDECK_DATA} for this environment.
std::string defaultDataDir(const EnvLookup& env);

bool isGlob(const std::string& path);

}  // namespace traindeck
