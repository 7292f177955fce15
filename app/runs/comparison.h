// A comparison: up to 20 runs watched together. Each run keeps its colour slot while it stays
// in the comparison, so every chart and table shows it in the same colour. Each run's shared
// RunSession (from the RunRegistry: the Monitor's, when it shows the same run) keeps live runs
// updating. Lives in the GUI thread.
#pragma once

#include <QColor>
#include <QObject>
#include <QStringList>
#include <QTimer>
#include <memory>
#include <vector>

#include "config/config_flatten.h"
#include "run_comparison.h"
#include "run_summary.h"

namespace traindeck {

class MetricsStore;
class RunRegistry;
class RunSession;

struct ComparedRun {
  QString runDir;      // absolute
  QString label;       // run.json's name, else the run's id
  int colorSlot = 0;   // comparisonColor(colorSlot)
  RunSummary summary;  // run.json and metrics ends; re-read every second while the run is live
  FlatConfig config;   // config.yaml, flattened; `error` says why it could not be read
};

// 20 colours that stay apart from each other on light and dark backgrounds.
QColor comparisonColor(int slot);

class Comparison : public QObject {
  Q_OBJECT
 public:
  static constexpr int kMaxRuns = 20;

  explicit Comparison(RunRegistry& registry, QObject* parent = nullptr);
  ~Comparison() override;

  // Compares these runs, in this order. Runs already compared keep their colours and their
  // metrics; new ones take the lowest free colour. Returns what was left out and why (more than
  // kMaxRuns runs, or a folder without run.json), empty when every run was taken.
  QString setRuns(const QStringList& runDirs);
  QStringList runDirs() const;
  int size() const { return static_cast<int>(m_entries.size()); }
  const ComparedRun& run(int index) const { return m_entries.at(static_cast<std::size_t>(index)).run; }
  const MetricsStore& store(int index) const;
  RunFigures figures(int index) const;

 signals:
  void runsChanged();              // runs were added, removed or reordered
  void metricsChanged(int index);  // that run's metrics grew
  void summaryChanged(int index);  // that run's status, name or step changed

 private:
  struct Entry {
    ComparedRun run;
    std::shared_ptr<const RunSession> session;
  };
  void refreshLiveSummaries();
  int indexOf(const QString& runDir) const;

  RunRegistry& m_registry;
  std::vector<Entry> m_entries;
  QTimer m_refresh;
};

}  // namespace traindeck
