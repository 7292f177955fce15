// A metric file may be appended to while it is read: a last line without its newline is left
// for the next read, and a line that does not parse is a problem naming the file and line.
#include "imports/mlflow_files_reader.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <functional>
#include <limits>

#include "imports/import_files.h"
#include "imports/not_read.h"
#include "imports/run_builder.h"
#include "imports/tensorboard_reader.h"
#include "imports/tfevents_parser.h"

namespace traindeck {

namespace {

// "1718000000123 0.25 10" (step missing in files older than MLflow 1.0: 0).
bool parseMetricLine(std::string_view line, double& timeSeconds, double& value, std::int64_t& step) {
  std::string_view fields[3];
  int count = 0;
  std::size_t at = 0;
  while (at < line.size() && count < 4) {
    while (at < line.size() && line[at] == ' ') ++at;
    if (at == line.size()) break;
    const std::size_t end = std::min(line.find(' ', at), line.size());
    if (count == 3) return false;
    fields[count++] = line.substr(at, end - at);
    at = end;
  }
  if (count < 2) return false;
  std::int64_t ms = 0;
  if (std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), ms).ec != std::errc()) return false;
  timeSeconds = static_cast<double>(ms) / 1000.0;
  // from_chars reads "nan", "inf", "-inf" too, as Python writes them.
  const auto parsed = std::from_chars(fields[1].data(), fields[1].data() + fields[1].size(), value);
  if (parsed.ec != std::errc() || parsed.ptr != fields[1].data() + fields[1].size()) return false;
  step = 0;
  if (count == 3) {
    const auto s = std::from_chars(fields[2].data(), fields[2].data() + fields[2].size(), step);
    if (s.ec != std::errc() || s.ptr != fields[2].data() + fields[2].size()) return false;
  }
  return true;
}

void readMetricFile(const std::filesystem::path& file, const std::string& key, RunBuilder& into) {
  const std::string bytes = readFileBytes(file);
  const bool partial = forEachCompleteLine(bytes, [&](std::string_view line, std::size_t lineNumber) {
    double time = 0, value = 0;
    std::int64_t step = 0;
    if (parseMetricLine(line, time, value, step))
      into.add(key, step, time, value);
    else
      into.addProblem(file.string() + ":" + std::to_string(lineNumber) + ": not \"timestamp value step\"; skipped");
    return true;
  });
  if (partial) into.setPartialTail(true);
}

// Files under `folder` as keys relative to `root` ("train/loss" for metrics/train/loss).
void forEachKeyFile(const std::filesystem::path& root, const std::filesystem::path& folder, int depth,
                    const std::function<void(const std::filesystem::path&, const std::string&)>& onFile) {
  if (depth > 8) return;
  for (const auto& entry : sortedEntries(folder)) {
    if (isDirectory(entry))
      forEachKeyFile(root, entry, depth + 1, onFile);
    else if (isRegularFile(entry))
      onFile(entry, entry.lexically_relative(root).generic_string());
  }
}

// TensorBoard logs among the run's artifacts (mlflow.tensorflow.autolog's tensorboard_logs/, a
// SummaryWriter's folder logged with log_artifacts): their scalars are the run's, each under the
// folder's path below artifacts/ ("tensorboard_logs/train/epoch_loss").
void readArtifactEventFiles(const std::filesystem::path& artifacts, const std::filesystem::path& folder, int depth,
                            RunBuilder& into) {
  if (depth > 6) return;
  for (const auto& entry : sortedEntries(folder)) {
    if (isDirectory(entry)) {
      readArtifactEventFiles(artifacts, entry, depth + 1, into);
      continue;
    }
    if (!isTfEventsFileName(entry.filename().string()) || !isRegularFile(entry)) continue;
    const std::string bytes = readFileBytes(entry);
    if (isGitLfsPointer(bytes)) {
      into.addProblem(gitLfsPointerSentence(entry));
      continue;
    }
    const std::string prefix = folder.lexically_relative(artifacts).generic_string() + "/";
    const FramedScan scan = readTfEventsBytes(bytes, entry.string(), prefix == "./" ? std::string() : prefix, into);
    if (scan.partialTail) into.setPartialTail(true);
  }
}

// Deleted in MLflow: the run's lifecycle_stage, or its experiment's (the experiment's meta.yaml
// is in the folder above).
bool isDeletedStage(const std::filesystem::path& meta) {
  try {
    const YAML::Node node = YAML::LoadFile(meta.string());
    const YAML::Node stage = node["lifecycle_stage"];
    return stage && stage.IsScalar() && stage.Scalar() == "deleted";
  } catch (const YAML::Exception&) {
    return false;
  }
}

class MlflowFolderFormat final : public RunFormat {
 public:
  SourceKind kind() const override { return SourceKind::MlflowFolder; }
  std::string_view name() const override { return "mlflow-files"; }
  std::string_view badge() const override { return "MLflow"; }
  std::string_view signs() const override { return "mlruns/"; }
  bool findInFolder(const std::filesystem::path& folder, FoundRuns& found) const override {
    if (!isMlflowRunFolder(folder)) return false;
    if (isDeletedStage(folder / "meta.yaml") || isDeletedStage(folder.parent_path() / "meta.yaml")) {
      found.notRead.push_back(NotRead{.path = folder,
                                      .reason = folder.string() +
                                                ": deleted in MLflow (lifecycle_stage: deleted), so not shown, as "
                                                "MLflow hides it; `mlflow gc` removes it for good"});
      return true;
    }
    found.add(kind(), folder);
    const MlflowRunNames names = mlflowRunNames(folder);
    const bool shared = !names.name.empty() && namesInExperiment(folder.parent_path(), found)[names.name] > 1;
    found.runs.back().displayName = shared ? uniqueName(names.name, names.id) : names.name;
    found.runs.back().id = names.id;
    return true;
  }

 private:
  // The names of the experiment's live runs, counted once a search (a sweep's runs share names).
  static std::map<std::string, int>& namesInExperiment(const std::filesystem::path& experiment, FoundRuns& found) {
    const auto [it, added] = found.namesInScope.try_emplace(experiment);
    if (added)
      for (const auto& run : sortedEntries(experiment))
        if (isMlflowRunFolder(run) && !isDeletedStage(run / "meta.yaml"))
          if (const std::string name = mlflowRunNames(run).name; !name.empty()) ++it->second[name];
    return it->second;
  }
  ImportedRun read(const RunSource& source) const override { return readMlflowFolderRun(source.path, source.name); }
};

}  // namespace

const RunFormat& mlflowFolderFormat() {
  static const MlflowFolderFormat format;
  return format;
}

MlflowRunNames mlflowRunNames(const std::filesystem::path& folder) {
  MlflowRunNames names;
  try {
    const YAML::Node meta = YAML::LoadFile((folder / "meta.yaml").string());
    if (const YAML::Node runName = meta["run_name"]; runName && runName.IsScalar()) names.name = runName.Scalar();
    if (const YAML::Node id = meta["run_id"]; id && id.IsScalar()) names.id = id.Scalar();
  } catch (const YAML::Exception&) {
    // said by the read, which names the file
  }
  // Runs from before run_name was in meta.yaml keep it as a tag only.
  if (const auto tag = folder / "tags" / "mlflow.runName"; names.name.empty() && isRegularFile(tag)) {
    try {
      names.name = readFileBytes(tag);
    } catch (const std::exception&) {
      names.name.clear();
    }
    while (!names.name.empty() && (names.name.back() == '\n' || names.name.back() == '\r')) names.name.pop_back();
  }
  if (names.id.empty()) names.id = folder.filename().string();
  return names;
}

bool isMlflowRunFolder(const std::filesystem::path& folder) {
  return isRegularFile(folder / "meta.yaml") && isDirectory(folder / "metrics");
}

ImportedRun readMlflowFolderRun(const std::filesystem::path& folder, std::string name) {
  RunBuilder builder(SourceKind::MlflowFolder, std::move(name), folder.string());
  try {
    (void)YAML::LoadFile((folder / "meta.yaml").string());
  } catch (const YAML::Exception& e) {
    builder.addProblem((folder / "meta.yaml").string() + ": not read as YAML: " + e.what());
  }
  const MlflowRunNames names = mlflowRunNames(folder);
  if (!names.name.empty()) builder.setName(names.name);
  builder.setConfig("mlflow.run_id", names.id);
  const std::filesystem::path metrics = folder / "metrics";
  forEachKeyFile(metrics, metrics, 0, [&](const std::filesystem::path& file, const std::string& key) {
    readMetricFile(file, key, builder);
  });
  const std::filesystem::path params = folder / "params";
  forEachKeyFile(params, params, 0, [&](const std::filesystem::path& file, const std::string& key) {
    std::string value = readFileBytes(file);
    while (!value.empty() && (value.back() == '\n' || value.back() == '\r')) value.pop_back();
    builder.setConfig(key, std::move(value));
  });
  if (isDirectory(folder / "artifacts")) readArtifactEventFiles(folder / "artifacts", folder / "artifacts", 0, builder);
  return builder.take();
}

}  // namespace traindeck
