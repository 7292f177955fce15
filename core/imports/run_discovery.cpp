// Each folder is asked by every format of the table, in order, whether it is a run; only a
// folder that is none is searched for run files (stores, CSV logs, llm.c logs) and entered.
#include "imports/run_discovery.h"

#include "imports/import_error.h"
#include "imports/import_files.h"
#include "imports/not_read.h"

namespace traindeck {

namespace {

constexpr int kMaxDepth = 8;

bool addFolderRuns(const std::filesystem::path& dir, FoundRuns& found) {
  for (const RunFormat* format : runFormats())
    if (format->findInFolder(dir, found)) return true;
  return false;
}

void addFileRuns(const std::filesystem::path& file, FoundRuns& found) {
  for (const RunFormat* format : runFormats())
    if (format->findInFile(file, found)) return;
  if (std::string reason = whyRunFileNotRead(file); !reason.empty())
    found.notRead.push_back(NotRead{.path = file, .reason = std::move(reason)});
}

void visit(const std::filesystem::path& dir, int depth, FoundRuns& found) {
  if (addFolderRuns(dir, found)) return;
  std::vector<std::filesystem::path> folders;
  for (const auto& entry : sortedEntries(dir)) {
    std::error_code ec;
    if (std::filesystem::is_symlink(entry, ec)) continue;
    if (isRegularFile(entry))
      addFileRuns(entry, found);
    else if (isDirectory(entry) && !entry.filename().string().starts_with("."))
      folders.push_back(entry);
  }
  if (depth < kMaxDepth)
    for (const auto& sub : folders) visit(sub, depth + 1, found);
}

}  // namespace

RunSearch searchRuns(const std::filesystem::path& folder) {
  FoundRuns found;
  if (isRegularFile(folder)) {  // a run's own file, or a file inside a run's folder
    found.root = folder.parent_path();
    addFileRuns(folder, found);
    if (found.runs.empty() && found.notRead.empty()) {
      found.root = folder.parent_path().parent_path();
      addFolderRuns(folder.parent_path(), found);
    }
  } else if (isDirectory(folder)) {
    found.root = folder;
    visit(folder, 0, found);
  }
  return RunSearch{.runs = std::move(found.runs), .notRead = std::move(found.notRead)};
}

std::vector<RunSource> findRuns(const std::filesystem::path& folder) {
  return searchRuns(folder).runs;
}

ImportedRun readRun(const RunSource& source) {
  const RunFormat* format = runFormatOf(source.kind);
  if (format == nullptr) throw ImportError(source.path.string() + ": unknown source kind");
  ImportedRun run = format->read(source);
  if (!source.displayName.empty()) run.name = source.displayName;
  return run;
}

}  // namespace traindeck
