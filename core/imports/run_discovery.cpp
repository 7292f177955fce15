// Each folder is asked, in order, whether it is a run of a folder format; only a folder that is
// none is searched for run files (MLflow stores, CSV logs, llm.c logs) and entered further.
#include "imports/run_discovery.h"

#include "imports/csv_logs_reader.h"
#include "imports/hf_trainer_reader.h"
#include "imports/import_error.h"
#include "imports/import_files.h"
#include "imports/llmc_log_reader.h"
#include "imports/mlflow_files_reader.h"
#include "imports/mlflow_store_reader.h"
#include "imports/native_run_reader.h"
#include "imports/tensorboard_reader.h"
#include "imports/wandb_reader.h"

namespace traindeck {

namespace {

constexpr int kMaxDepth = 8;

struct Search {
  std::filesystem::path root;
  std::vector<RunSource> runs;

  std::string nameOf(const std::filesystem::path& path) const {
    const std::string relative = path.lexically_relative(root).generic_string();
    if (!relative.empty() && relative != ".") return relative;
    const std::filesystem::path whole = std::filesystem::absolute(path).lexically_normal();
    const std::string last = whole.has_filename() ? whole.filename().string() : whole.parent_path().filename().string();
    return last.empty() ? whole.string() : last;
  }

  void add(SourceKind kind, const std::filesystem::path& path, std::string key = {}, std::string name = {}) {
    runs.push_back(RunSource{
        .kind = kind, .name = name.empty() ? nameOf(path) : std::move(name), .path = path, .key = std::move(key)});
  }

  bool addFolderRun(const std::filesystem::path& dir) {
    if (isNativeRunFolder(dir))
      add(SourceKind::TrainDeck, dir);
    else if (isHfTrainerRun(dir))
      add(SourceKind::HfTrainer, dir);
    else if (isMlflowRunFolder(dir))
      add(SourceKind::MlflowFolder, dir);
    else if (isWandbRunFolder(dir))
      add(SourceKind::Wandb, dir);
    else if (isLightningMetricsCsv(dir / "metrics.csv"))
      add(SourceKind::LightningCsv, dir);
    else if (isTensorBoardRun(dir))
      add(SourceKind::TensorBoard, dir);
    else
      return false;
    return true;
  }

  void addFileRuns(const std::filesystem::path& file) {
    const std::string ext = file.extension().string();
    if ((ext == ".db" || ext == ".sqlite" || ext == ".sqlite3") && looksLikeSqliteFile(file)) {
      try {
        for (const MlflowStoreRun& run : listMlflowStoreRuns(file))
          add(SourceKind::MlflowStore, file, run.runUuid, run.name);
      } catch (const ImportError&) {
        // Some other SQLite database: not ours to read.
      }
    } else if (isKerasCsvLog(file)) {
      add(SourceKind::KerasCsv, file);
    } else if (isLlmcLog(file)) {
      add(SourceKind::LlmC, file);
    }
  }

  void visit(const std::filesystem::path& dir, int depth) {
    if (addFolderRun(dir)) return;
    std::vector<std::filesystem::path> folders;
    for (const auto& entry : sortedEntries(dir)) {
      std::error_code ec;
      if (std::filesystem::is_symlink(entry, ec)) continue;
      if (isRegularFile(entry))
        addFileRuns(entry);
      else if (isDirectory(entry) && !entry.filename().string().starts_with("."))
        folders.push_back(entry);
    }
    if (depth < kMaxDepth)
      for (const auto& sub : folders) visit(sub, depth + 1);
  }
};

}  // namespace

std::vector<RunSource> findRuns(const std::filesystem::path& folder) {
  if (isRegularFile(folder)) {  // a run's own file, or a file inside a run's folder
    Search search{.root = folder.parent_path(), .runs = {}};
    search.addFileRuns(folder);
    if (search.runs.empty() && search.addFolderRun(folder.parent_path()))
      search.runs.back().name = search.nameOf(folder.parent_path());
    return search.runs;
  }
  Search search{.root = folder, .runs = {}};
  if (isDirectory(folder)) search.visit(folder, 0);
  return search.runs;
}

ImportedRun readRun(const RunSource& source) {
  switch (source.kind) {
    case SourceKind::TrainDeck:
      return readNativeRun(source.path, source.name);
    case SourceKind::TensorBoard:
      return readTensorBoardRun(source.path, source.name);
    case SourceKind::HfTrainer:
      return readHfTrainerRun(source.path, source.name);
    case SourceKind::MlflowStore:
      return readMlflowStoreRun(source.path, source.key);
    case SourceKind::MlflowFolder:
      return readMlflowFolderRun(source.path, source.name);
    case SourceKind::Wandb:
      return readWandbRun(source.path, source.name);
    case SourceKind::LightningCsv:
      return readLightningCsvRun(source.path, source.name);
    case SourceKind::KerasCsv:
      return readKerasCsvRun(source.path, source.name);
    case SourceKind::LlmC:
      return readLlmcRun(source.path, source.name);
  }
  throw ImportError(source.path.string() + ": unknown source kind");
}

}  // namespace traindeck
