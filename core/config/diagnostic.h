// A problem found in a config: where it is (YAML path, line, column), what is wrong, and what
// to do about it. Loading and validation collect every problem; none of them throws.
#pragma once

#include <string>
#include <vector>

namespace traindeck {

enum class Severity { Error, Warning };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string path;  // "strategy.micro_batch"; empty for the whole file
  int line = 0;      // 1-based; 0 when the value has no place in a file (a default, a form)
  int column = 0;    // 1-based
  std::string message;
  std::string hint;  // may be empty

  // The first part of `path` ("strategy" for "strategy.micro_batch").
  std::string section() const;
  // "job.yaml:12:5: error: strategy.micro_batch: must be at least 1 (hint: ...)"
  std::string format(const std::string& source) const;
};

using Diagnostics = std::vector<Diagnostic>;

bool hasErrors(const Diagnostics& diagnostics);

// An error about a file as a whole (no key), at a line and column when it has one.
Diagnostic fileDiagnostic(std::string message, int line = 0, int column = 0);

}  // namespace traindeck
