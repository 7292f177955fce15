// A comparison: any number of runs watched together, TrainDeck's own and other tools' (by their
// address, imported_runs.h). Each run keeps its colour slot while it stays in the comparison; the
// colouring (by run, config key, metric or by hand, run_colours.h) gives each run the one colour
// that every chart and table shows it in. Each run's shared RunSession (from the RunRegistry: the
// Monitor's, when it shows the same run) keeps live runs updating; another tool's run is read by
// its session in the follower thread, again whenever its files change. Lives in the GUI thread.
#pragma once

#include <QColor>
#include <QHash>
#include <QObject>
#include <QStringList>
#include <QTimer>
#include <memory>
#include <vector>

#include "config/config_flatten.h"
#include "imported_runs.h"
#include "run_colours.h"
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

class Comparison : public QObject {
  Q_OBJECT
 public:
  static constexpr int kColorCount = kComparisonColorCount;

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
  const std::vector<ScalarSeries>& scalars(int index) const { return store(index).scalars(); }
  RunFigures figures(int index) const;
  // The names of every metric any compared run has, the mapped ones first (metric_series.h).
  QStringList metricNames() const;

  // How the runs are coloured; runColour(i) is run i's colour in every chart and table, and
  // colourNote(i) what it stands for ("optimizer.lr=0.001"; empty for the run's own colour).
  void setColourBy(const ColourBy& by);
  const ColourBy& colourBy() const { return m_colourBy; }
  const RunColours& colours() const { return m_colours; }
  QColor runColour(int index) const { return m_colours.colours.value(index, comparisonColor(run(index).colorSlot)); }
  QString colourNote(int index) const { return m_colours.notes.value(index); }
  QString colourValue(int index) const { return m_colours.values.value(index); }  // the note's value alone
  // Colouring by a metric: the run's value the ramp places (its last or smallest); NaN otherwise.
  double colourMetricValue(int index) const { return m_entries.at(static_cast<std::size_t>(index)).colourMetric; }
  // A colour picked by hand for the run at this address, kept while the app runs (whether the
  // run is compared or not); an invalid colour forgets it. Shown when colouring ByHand.
  void setHandColour(const QString& runDir, const QColor& colour);
  QColor handColour(const QString& runDir) const { return m_handColours.value(runDir); }

 signals:
  void runsChanged();              // runs were added, removed or reordered
  void metricsChanged(int index);  // that run's metrics grew
  void summaryChanged(int index);  // that run's status, name or step changed
  void coloursChanged();           // some run's colour or note changed

 private:
  struct Entry {
    ComparedRun run;
    std::shared_ptr<const RunSession> session;
    double colourMetric = NAN;  // colouring by a metric: its value for this run
  };
  void refreshLiveSummaries();
  // Another tool's run as its session last read it: label, summary, config and badge.
  static void takeImported(ComparedRun& run, const RunSession& session);
  int indexOf(const QString& runDir) const;
  void refreshColourMetric(int index);
  bool refreshColours();  // true when a colour or note changed

  RunRegistry& m_registry;
  std::vector<Entry> m_entries;
  QTimer m_refresh;
  ColourBy m_colourBy;
  RunColours m_colours;                  // one per entry, refreshed as runs, configs or metrics change
  QHash<QString, QColor> m_handColours;  // by run address
};

}  // namespace traindeck
