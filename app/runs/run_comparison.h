// What the Compare page shows of several runs: the config keys whose values differ (or all of
// them), and each run's summary figures. Plain functions over data already read.
#pragma once

#include <QString>
#include <QVector>

#include "config/config_flatten.h"
#include "metrics_store.h"

namespace traindeck {

struct ConfigDiffRow {
  QString key;              // "strategy.micro_batch"
  QVector<QString> values;  // one per run; empty where the run has no such key
  QVector<bool> present;    // whether each run has the key
  bool differs = false;     // not every run has the same value (a missing key differs)
};

// Keys in first-seen order across the runs; with onlyDifferences, the rows that differ.
QVector<ConfigDiffRow> diffConfigs(const QVector<FlatConfig>& configs, bool onlyDifferences);

struct RunFigures {
  QString status;
  double finalLoss = std::nan("");    // the last train record's loss
  double bestValLoss = std::nan("");  // the lowest val loss, and its step
  qint64 bestValStep = -1;
  double medianTokensPerSecond = std::nan("");
  double wallSeconds = 0;                // first to last record, without its pauses (run_pauses.h)
  qint64 parameters = 0, worldSize = 1;  // from the metrics header
  QString strategy, precision;           // from the config
};

RunFigures summarizeRun(const MetricsStore& store, const QString& status, const FlatConfig& config);

}  // namespace traindeck
