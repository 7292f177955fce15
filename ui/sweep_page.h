// The Sweep page: one sweep folder, live while its sweep runs (SweepWatcher re-reads it when a
// file changes). Parallel coordinates whose brushes filter every other view, importance bars,
// learning curves with the pruning points, the metric against each parameter, and a sortable
// table of trials; the best trial is highlighted everywhere. Its actions act on the selected
// trial and are signals: the main window opens jobs and runs, the runner promotes.
#pragma once

#include <QWidget>
#include <memory>

#include "sweep_filter.h"

class QLabel;
class QPushButton;
class QTableView;

namespace traindeck {

class SweepCurvesChart;
class SweepImportanceBars;
class SweepParallelView;
class SweepScatterGrid;
class SweepTrialFilterModel;
class SweepTrialModel;
class SweepWatcher;

class SweepPage : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxColumnWidth = 240;  // the table's columns as first fitted

  explicit SweepPage(QWidget* parent = nullptr);

  // Shows and follows this sweep folder (empty: none).
  void showSweep(const QString& sweepDir);
  QString sweepDir() const;
  std::shared_ptr<const SweepView> view() const { return m_view; }

  const SweepFilter& filter() const { return m_filter; }
  void setBrush(const QString& axisKey, double low, double high);
  void clearBrush(const QString& axisKey);
  void clearBrushes();

  // The trial the actions act on (index in the view), or -1.
  int selectedTrial() const;
  void selectTrial(int trial);

  // "Start a full run from this trial…", "Show run", "Promote", "Run again": enabled as the
  // selected trial allows.
  void startFullRun();
  void showTrialRun();
  void promoteTrial();
  void rerunTrial();

  SweepWatcher* watcher() const { return m_watcher; }
  SweepParallelView* parallel() const { return m_parallel; }
  SweepScatterGrid* scatters() const { return m_scatters; }
  SweepCurvesChart* curves() const { return m_curves; }
  SweepImportanceBars* importance() const { return m_importance; }
  QTableView* table() const { return m_table; }
  QLabel* message() const { return m_message; }
  QLabel* header() const { return m_header; }

 signals:
  // The trial's job (YAML, the folder its relative paths mean), to open as a new job.
  void fullRunRequested(const QString& yaml, const QString& baseDir);
  void runRequested(const QString& runDir);
  void promoteRequested(const QString& sweepDir, const QString& trialId);
  void rerunRequested(const QString& sweepDir, const QString& trialId);
  // Why an action could not be done.
  void problem(const QString& title, const QString& text);

 private:
  void showView(std::shared_ptr<const SweepView> view);
  void redraw();  // every view from the view and the filter
  void showHeader();
  void updateActions();
  QWidget* buildActions();

  SweepWatcher* m_watcher;
  std::shared_ptr<const SweepView> m_view;
  SweepFilter m_filter;
  std::vector<bool> m_passing;
  QString m_selectedId;  // kept across re-reads by the trial's id
  QLabel* m_header;
  QLabel* m_message;
  QLabel* m_filterNote;
  QPushButton* m_clearBrushes;
  SweepParallelView* m_parallel;
  SweepImportanceBars* m_importance;
  SweepCurvesChart* m_curves;
  SweepScatterGrid* m_scatters;
  SweepTrialModel* m_model;
  SweepTrialFilterModel* m_proxy;
  QTableView* m_table;
  QPushButton* m_startFull = nullptr;
  QPushButton* m_showRun = nullptr;
  QPushButton* m_promote = nullptr;
  QPushButton* m_rerun = nullptr;
};

}  // namespace traindeck
