// A comparison: any number of runs watched together, TrainDeck's own and other tools' (by their
// address, imported_runs.h). Each run keeps its colour slot while it stays in the comparison, so
// every chart and table shows it in the same colour. Each TrainDeck run's shared RunSession (from
// the RunRegistry: the Monitor's, when it shows the same run) keeps live runs updating; another
// tool's run is read here and read again when its files change. Lives in the GUI thread.
#pragma once

#include <QColor>
#include <QObject>
#include <QStringList>
#include <QTimer>
#include <memory>
#include <vector>

#include "config/config_flatten.h"
#include "imported_runs.h"
#include "run_comparison.h"
#include "run_summary.h"

namespace traindeck {

class MetricsStore;
class RunRegistry;
class RunSession;

struct ComparedRun {
  QString runDir;      // absolute; another tool's run: its address
  QString label;       // run.json's name, else the run's id; another tool's: its run name
  int colorSlot = 0;   // comparisonColor(colorSlot)
  QString source;      // another tool's run: its badge ("TensorBoard"); empty for TrainDeck's
  RunSummary summary;  // run.json and metrics ends; re-read every second while the run is live
  FlatConfig config;   // config.yaml, flattened; `error` says why it could not be read
};

// 20 colours that stay apart from each other on light and dark backgrounds; slots past them
// take the same colours again (grouping gives hundreds of runs a colour per group).
QColor comparisonColor(int slot);

class Comparison : public QObject {
  Q_OBJECT
 public:
  static constexpr int kColorCount = 20;

  explicit Comparison(RunRegistry& registry, QObject* parent = nullptr);
  ~Comparison() override;

  // Compares these runs, in this order. Runs already compared keep their colours and their
  // metrics; new ones take the lowest free colour. Returns what was left out and why (a folder
  // that is no run of TrainDeck's or of another tool's), empty when every run was taken.
  QString setRuns(const QStringList& runDirs);
  QStringList runDirs() const;
  int size() const { return static_cast<int>(m_entries.size()); }
  const ComparedRun& run(int index) const { return m_entries.at(static_cast<std::size_t>(index)).run; }
  const MetricsStore& store(int index) const;
  // Another tool's scalars kept under their own names; empty for TrainDeck's runs.
  const std::vector<ScalarSeries>& scalars(int index) const;
  RunFigures figures(int index) const;
  // The names of every metric any compared run has, the mapped ones first (metric_series.h).
  QStringList metricNames() const;

 signals:
  void runsChanged();              // runs were added, removed or reordered
  void metricsChanged(int index);  // that run's metrics grew
  void summaryChanged(int index);  // that run's status, name or step changed

 private:
  // Another tool's run as last read, and what its files were then.
  struct Imported {
    RunSource source;
    ImportSignature signature;
    MetricsStore store;
    std::vector<ScalarSeries> scalars;
  };
  struct Entry {
    ComparedRun run;
    std::shared_ptr<const RunSession> session;  // TrainDeck's runs
    std::unique_ptr<Imported> imported;         // other tools' runs
  };
  void refreshLiveSummaries();
  // Reads another tool's run into the entry; false (and why in `error`) when it cannot be read.
  static bool readImported(Entry& entry, int colorSlot, QString& error);
  int indexOf(const QString& runDir) const;

  RunRegistry& m_registry;
  std::vector<Entry> m_entries;
  QTimer m_refresh;
};

}  // namespace traindeck
