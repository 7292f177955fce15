// Each file is read whole and scanned once; a cut last record marks the run as still growing.
// A folder holding several sessions lists each as a run of its own, keyed by its first file.
#include "imports/tensorboard_reader.h"

#include "imports/import_error.h"
#include "imports/import_files.h"
#include "imports/not_read.h"
#include "imports/run_builder.h"
#include "imports/tensorboard_sessions.h"
#include "imports/tfevents_parser.h"

namespace traindeck {

namespace {

void readEventFiles(const std::vector<TensorBoardFile>& files, RunBuilder& into) {
  for (const TensorBoardFile& file : files) {
    const std::string bytes = readFileBytes(file.path);
    const FramedScan scan = readTfEventsBytes(bytes, file.path.string(), file.tagPrefix, into);
    if (scan.partialTail) into.setPartialTail(true);
  }
}

class TensorBoardFormat final : public RunFormat {
 public:
  SourceKind kind() const override { return SourceKind::TensorBoard; }
  std::string_view name() const override { return "tensorboard"; }
  std::string_view badge() const override { return "TensorBoard"; }
  std::string_view signs() const override { return "events.out.tfevents.*"; }
  bool findInFolder(const std::filesystem::path& folder, FoundRuns& found) const override {
    const std::vector<TensorBoardSession> sessions = tensorBoardSessions(folder);
    if (sessions.empty()) return false;
    if (sessions.size() == 1) {
      found.add(kind(), folder);
      return true;
    }
    const std::string name = found.nameOf(folder);
    for (std::size_t i = 0; i < sessions.size(); ++i)
      found.add(kind(), folder, sessions[i].key,
                name + " (session " + std::to_string(i + 1) + " of " + std::to_string(sessions.size()) + ")");
    return true;
  }
  ImportedRun read(const RunSource& source) const override {
    return readTensorBoardRun(source.path, source.name, source.key);
  }
};

}  // namespace

bool isTfEventsFileName(std::string_view fileName) {
  return fileName.starts_with("events.out.tfevents.");
}

bool isKerasSplitFolderName(std::string_view name) {
  return name == "train" || name == "validation";
}

ImportedRun readTensorBoardRun(const std::filesystem::path& folder, std::string name, const std::string& session) {
  RunBuilder builder(SourceKind::TensorBoard, std::move(name), folder.string());
  const std::vector<TensorBoardSession> sessions = tensorBoardSessions(folder);
  bool found = session.empty();
  for (const TensorBoardSession& each : sessions)
    if (session.empty() || each.key == session) {
      readEventFiles(each.files, builder);
      for (const std::filesystem::path& pointer : each.lfsPointers) builder.addProblem(gitLfsPointerSentence(pointer));
      found = true;
    }
  if (!found) throw ImportError(folder.string() + ": no session " + session + " (its event file is gone)");
  return builder.take();
}

const RunFormat& tensorBoardFormat() {
  static const TensorBoardFormat format;
  return format;
}

}  // namespace traindeck
