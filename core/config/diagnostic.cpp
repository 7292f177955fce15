// Formatting of config problems in the compiler style that editors know how to jump to.
#include "diagnostic.h"

#include <algorithm>

namespace traindeck {

std::string Diagnostic::section() const {
  return path.substr(0, path.find('.'));
}

std::string Diagnostic::format(const std::string& source) const {
  std::string out = source;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  if (!out.empty()) out += ": ";  // no source: the line starts with what it is
  out += severity == Severity::Error ? "error: " : "warning: ";
  if (!path.empty()) out += path + ": ";
  out += message;
  if (!hint.empty()) out += " (" + hint + ")";
  return out;
}

bool hasErrors(const Diagnostics& diagnostics) {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

Diagnostic fileDiagnostic(std::string message, int line, int column) {
  Diagnostic d;
  d.message = std::move(message);
  d.line = line;
  d.column = column;
  return d;
}

}  // namespace traindeck
