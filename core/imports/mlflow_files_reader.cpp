// A metric file may be appended to while it is read: a last line without its newline is left
// for the next read, and a line that does not parse is a problem naming the file and line.
#include "imports/mlflow_files_reader.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <functional>
#include <limits>

#include "imports/import_files.h"
#include "imports/run_builder.h"

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

}  // namespace

bool isMlflowRunFolder(const std::filesystem::path& folder) {
  return isRegularFile(folder / "meta.yaml") && isDirectory(folder / "metrics");
}

ImportedRun readMlflowFolderRun(const std::filesystem::path& folder, std::string name) {
  RunBuilder builder(SourceKind::MlflowFolder, std::move(name), folder.string());
  bool named = false;
  try {
    const YAML::Node meta = YAML::LoadFile((folder / "meta.yaml").string());
    if (const YAML::Node runName = meta["run_name"]; runName && runName.IsScalar() && !runName.Scalar().empty()) {
      builder.setName(runName.Scalar());
      named = true;
    }
    if (const YAML::Node id = meta["run_id"]; id && id.IsScalar()) builder.setConfig("mlflow.run_id", id.Scalar());
  } catch (const YAML::Exception& e) {
    builder.addProblem((folder / "meta.yaml").string() + ": not read as YAML: " + e.what());
  }
  // Runs from before run_name was in meta.yaml keep it as a tag only.
  if (const auto tag = folder / "tags" / "mlflow.runName"; !named && isRegularFile(tag)) {
    std::string tagged = readFileBytes(tag);
    while (!tagged.empty() && (tagged.back() == '\n' || tagged.back() == '\r')) tagged.pop_back();
    if (!tagged.empty()) builder.setName(std::move(tagged));
  }
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
  return builder.take();
}

}  // namespace traindeck
