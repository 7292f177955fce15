// Diagnostics placed by yaml-cpp's marks.
#include "yaml_diagnostic.h"

namespace traindeck {

Diagnostic diagnosticAt(const YAML::Node& node, std::string path, std::string message, std::string hint,
                        Severity severity) {
  Diagnostic d = fileDiagnostic(std::move(message));
  d.severity = severity;
  d.path = std::move(path);
  d.hint = std::move(hint);
  const YAML::Mark mark = node.Mark();
  if (!mark.is_null()) {
    d.line = mark.line + 1;
    d.column = mark.column + 1;
  }
  return d;
}

}  // namespace traindeck
