// metrics.jsonl goes through the parser every reader of the app uses; its batch is the run's
// metrics as they are, with no name mapping.
#include "imports/native_run_reader.h"

#include "imports/import_files.h"
#include "imports/run_builder.h"
#include "runlog/metrics_jsonl_parser.h"
#include "runlog/run_directory.h"

namespace traindeck {

bool isNativeRunFolder(const std::filesystem::path& folder) {
  return isRegularFile(folder / run_file::kMetrics);
}

ImportedRun readNativeRun(const std::filesystem::path& folder, std::string name) {
  RunBuilder builder(SourceKind::TrainDeck, std::move(name), folder.string());
  const RunPaths paths{.root = folder.string()};
  if (isRegularFile(paths.runJson())) {
    const RunInfoReadResult info = readRunInfo(paths);
    if (!info.info.name.empty()) builder.setName(info.info.name);
    if (!info.ok()) builder.addProblem(paths.runJson() + ": " + info.error);
  }
  if (isRegularFile(paths.config())) addYamlConfig(paths.config(), builder);
  MetricsJsonlParser parser;
  MetricsBatch batch = parser.feed(readFileBytes(paths.metrics()));
  if (batch.garbageLines > 0)
    builder.addProblem(paths.metrics() + ": " + std::to_string(batch.garbageLines) + " line(s) not records; skipped");
  builder.setPartialTail(parser.pendingBytes() > 0);
  ImportedRun run = builder.take();
  run.metrics = std::move(batch);
  return run;
}

const RunFormat& nativeRunFormat() {
  static const PathFormat format({.kind = SourceKind::TrainDeck,
                                  .name = "traindeck",
                                  .badge = "",
                                  .signs = "run.json, metrics.jsonl",
                                  .isRunFolder = isNativeRunFolder,
                                  .isRunFile = nullptr,
                                  .read = readNativeRun});
  return format;
}

}  // namespace traindeck
