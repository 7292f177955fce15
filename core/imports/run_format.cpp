// What the formats share while a search runs: FoundRuns (a run's name below the searched
// folder, and adding it), the names made unique where runs of one store or experiment share one,
// and PathFormat's find functions for the formats whose run is one folder or one file.
#include "imports/run_format.h"

namespace traindeck {

std::string FoundRuns::nameOf(const std::filesystem::path& path) const {
  const std::string relative = path.lexically_relative(root).generic_string();
  if (!relative.empty() && relative != "." && !relative.starts_with("..")) return relative;
  const std::filesystem::path whole = std::filesystem::absolute(path).lexically_normal();
  const std::string last = whole.has_filename() ? whole.filename().string() : whole.parent_path().filename().string();
  return last.empty() ? whole.string() : last;
}

void FoundRuns::add(SourceKind kind, const std::filesystem::path& path, std::string key, std::string name) {
  runs.push_back(RunSource{.kind = kind,
                           .name = name.empty() ? nameOf(path) : std::move(name),
                           .path = path,
                           .key = std::move(key),
                           .displayName = {},
                           .id = {}});
}

std::string uniqueName(const std::string& name, const std::string& id) {
  return name + " (" + id.substr(0, 8) + ")";
}

void makeNamesUnique(std::vector<RunSource>& runs, std::size_t from) {
  std::map<std::string, int> count, numbered;
  for (std::size_t i = from; i < runs.size(); ++i) ++count[runs[i].displayName];
  for (std::size_t i = from; i < runs.size(); ++i) {
    RunSource& s = runs[i];
    if (s.displayName.empty() || count[s.displayName] < 2) continue;
    const std::string unique = s.id.empty() ? s.displayName + " (" + std::to_string(++numbered[s.displayName]) + ")"
                                            : uniqueName(s.displayName, s.id);
    if (s.name == s.displayName) s.name = unique;
    s.displayName = unique;
  }
}

bool PathFormat::findInFolder(const std::filesystem::path& folder, FoundRuns& found) const {
  if (m_spec.isRunFolder == nullptr || !m_spec.isRunFolder(folder)) return false;
  found.add(m_spec.kind, folder);
  return true;
}

bool PathFormat::findInFile(const std::filesystem::path& file, FoundRuns& found) const {
  if (m_spec.isRunFile == nullptr || !m_spec.isRunFile(file)) return false;
  found.add(m_spec.kind, file);
  return true;
}

}  // namespace traindeck
