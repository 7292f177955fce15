// What an importer hands over: one run of another tool as the records core/runlog's metrics
// parser produces (loss, lr, grad norm in `train`, val loss in `eval`), every other scalar by its
// own name, the config the format carries, and what could not be read. Plain values, no Qt.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runlog/metrics_batch.h"

namespace traindeck {

enum class SourceKind {
  TrainDeck,
  TensorBoard,
  HfTrainer,
  MlflowStore,
  MlflowFolder,
  Wandb,
  LightningCsv,
  KerasCsv,
  LlmC,
  Trackio,
  DvcLive,
  Optuna
};

// A short lowercase name for a log line: "tensorboard", "hf-trainer", "mlflow", ... (the table's)
std::string_view sourceKindName(SourceKind kind);
// What the run list's Source column says: "TensorBoard", "MLflow", ...; empty for TrainDeck's own.
std::string_view sourceKindBadge(SourceKind kind);

// One scalar that is not one of TrainDeck's own metrics, in the order it was read.
struct ScalarSeries {
  std::string name;
  std::vector<std::int64_t> step;
  std::vector<double> time;  // unix seconds; NaN where the format has none
  std::vector<double> value;
  std::size_t size() const { return step.size(); }
};

struct ImportedRun {
  SourceKind kind = SourceKind::TrainDeck;
  std::string name;  // the tool's own run name where it has one, else the source's
  std::string path;  // the folder or file read
  // train: loss, lr, gradNorm (the other columns NaN, tokens 0); eval: valLoss. Time NaN where
  // the format has none. A native run's batch is its metrics.jsonl as parsed.
  MetricsBatch metrics;
  std::vector<ScalarSeries> scalars;                        // every other scalar, by first appearance
  std::vector<std::pair<std::string, std::string>> config;  // flattened keys ("optimizer.lr"), values as text
  // What was skipped, one sentence each naming the file and byte or line ("…: corrupt record at
  // byte 1234 (data CRC mismatch); the rest of the file is skipped"). Records before it are kept.
  std::vector<std::string> problems;
  // The last record was cut short (a writer still at work): it is left for the next read.
  bool partialTail = false;

  const ScalarSeries* scalar(std::string_view name) const;
  const std::string* configValue(std::string_view key) const;
};

}  // namespace traindeck
