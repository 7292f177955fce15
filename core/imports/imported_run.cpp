// Lookups on an imported run, and the kinds' names (from the importer table).
#include "imports/imported_run.h"

#include "imports/run_format.h"

namespace traindeck {

std::string_view sourceKindName(SourceKind kind) {
  const RunFormat* format = runFormatOf(kind);
  return format ? format->name() : "unknown";
}

std::string_view sourceKindBadge(SourceKind kind) {
  const RunFormat* format = runFormatOf(kind);
  return format ? format->badge() : "";
}

const ScalarSeries* ImportedRun::scalar(std::string_view wanted) const {
  for (const ScalarSeries& s : scalars)
    if (s.name == wanted) return &s;
  return nullptr;
}

const std::string* ImportedRun::configValue(std::string_view key) const {
  for (const auto& [k, v] : config)
    if (k == key) return &v;
  return nullptr;
}

}  // namespace traindeck
