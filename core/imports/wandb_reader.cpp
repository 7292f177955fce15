// The run's display name comes from its RunRecord when it has one, else the folder's name.
#include "imports/wandb_reader.h"

#include "imports/import_error.h"
#include "imports/import_files.h"
#include "imports/not_read.h"
#include "imports/run_builder.h"
#include "imports/wandb_records.h"

namespace traindeck {

std::filesystem::path wandbFileOf(const std::filesystem::path& folder) {
  for (const auto& entry : sortedEntries(folder)) {
    const std::string name = entry.filename().string();
    std::error_code ec;
    // An empty file or a Git LFS pointer holds no run: the search says so (not_read.h).
    if (name.starts_with("run-") && name.ends_with(".wandb") && isRegularFile(entry) &&
        std::filesystem::file_size(entry, ec) > 0 && !ec && !isGitLfsPointerFile(entry))
      return entry;
  }
  return {};
}

bool isWandbRunFolder(const std::filesystem::path& folder) {
  return !wandbFileOf(folder).empty();
}

ImportedRun readWandbRun(const std::filesystem::path& folder, std::string name) {
  const std::filesystem::path file = wandbFileOf(folder);
  if (file.empty()) throw ImportError(folder.string() + ": no run-*.wandb file");
  RunBuilder builder(SourceKind::Wandb, std::move(name), folder.string());
  const std::string bytes = readFileBytes(file);
  const FramedScan scan = readWandbBytes(bytes, file.string(), builder);
  builder.setPartialTail(scan.partialTail);
  return builder.take();
}

const RunFormat& wandbFormat() {
  static const PathFormat format({.kind = SourceKind::Wandb,
                                  .name = "wandb",
                                  .badge = "W&B",
                                  .signs = "run-*.wandb",
                                  .isRunFolder = isWandbRunFolder,
                                  .isRunFile = nullptr,
                                  .read = readWandbRun});
  return format;
}

}  // namespace traindeck
