// Each file is read whole and scanned once; a cut last record marks the run as still growing.
#include "imports/tensorboard_reader.h"

#include "imports/import_files.h"
#include "imports/run_builder.h"
#include "imports/tfevents_parser.h"

namespace traindeck {

namespace {

bool holdsEventFiles(const std::filesystem::path& folder) {
  for (const auto& entry : sortedEntries(folder))
    if (isTfEventsFileName(entry.filename().string()) && isRegularFile(entry)) return true;
  return false;
}

void readEventFolder(const std::filesystem::path& folder, const std::string& prefix, RunBuilder& into) {
  for (const auto& entry : sortedEntries(folder)) {
    if (!isTfEventsFileName(entry.filename().string()) || !isRegularFile(entry)) continue;
    const std::string bytes = readFileBytes(entry);
    const FramedScan scan = readTfEventsBytes(bytes, entry.string(), prefix, into);
    if (scan.partialTail) into.setPartialTail(true);
  }
}

}  // namespace

bool isTfEventsFileName(std::string_view fileName) {
  return fileName.starts_with("events.out.tfevents.");
}

bool isKerasSplitFolderName(std::string_view name) {
  return name == "train" || name == "validation";
}

bool isTensorBoardRun(const std::filesystem::path& folder) {
  if (holdsEventFiles(folder)) return true;
  for (const char* split : {"train", "validation"})
    if (holdsEventFiles(folder / split)) return true;
  return false;
}

ImportedRun readTensorBoardRun(const std::filesystem::path& folder, std::string name) {
  RunBuilder builder(SourceKind::TensorBoard, std::move(name), folder.string());
  readEventFolder(folder, {}, builder);
  for (const char* split : {"train", "validation"}) readEventFolder(folder / split, std::string(split) + "/", builder);
  return builder.take();
}

}  // namespace traindeck
