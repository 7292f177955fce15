// Reads a sweep folder into a SweepView: sweep.json (core/sweep), sweep.yaml when it reads, and
// each trial's metrics.jsonl, of which it keeps what it parsed so that a read after a file grew
// parses only the new lines. Plain files in, an immutable value out; used by SweepWatcher and
// by tests. One reader per sweep shown; it lives on the thread that calls it.
#pragma once

#include <QDateTime>
#include <QString>
#include <map>
#include <optional>

#include "runlog/metrics_jsonl_parser.h"
#include "runs/metrics_store.h"
#include "sweep/sweep_spec.h"
#include "sweep_view.h"

namespace traindeck {

class SweepFolderReader {
 public:
  SweepView read(const QString& sweepDir);
  // What read() depends on, as a text that changes when one of its files does (sweep.json's
  // and sweep.yaml's times and sizes, each named run's metrics.jsonl size).
  QString signature(const QString& sweepDir, const SweepView& last) const;

  // Whether a folder is a sweep folder (it holds sweep.json).

 private:
  struct RunMetrics {
    qint64 parsedBytes = 0;
    MetricsJsonlParser parser;
    MetricsStore store;
  };
  // The run's metrics, read on from where the last read stopped (from the start if it shrank).
  const MetricsStore& metricsOf(const QString& runDir);
  void readSpec(const QString& path, SweepView& view);
  void fillTrial(SweepTrialView& trial, const SweepView& view);

  std::map<QString, RunMetrics> m_runs;
  QString m_specPath;
  QDateTime m_specTime;
  std::optional<LoadedSweepSpec> m_spec;
};

}  // namespace traindeck
