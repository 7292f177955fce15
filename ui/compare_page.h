// The Compare page: several runs side by side. Overlay charts (train loss, val loss, learning
// rate, tokens/s, gradient norm: one line per run in its colour) or small multiples (one chart
// per run for a chosen metric, shared axes); x by step, tokens, elapsed or wall-clock time; log
// scale; smoothing; zoom and pan synced across charts; a crosshair listing each run's value.
// Under the charts: the summary and config-diff tables. Named sets save and reopen a selection.
// Holds no run data: it draws what the Comparison (owned by the window) holds, at most every 40 ms.
#pragma once

#include <QSet>
#include <QTimer>
#include <QWidget>

#include "runs/metric_series.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QScrollArea;
class QSlider;
class QStackedWidget;
class QCPRange;
class QGridLayout;

namespace traindeck {

class CompareChart;
struct CompareLine;
class CompareTables;
class Comparison;
class ComparisonSets;

class ComparePage : public QWidget {
  Q_OBJECT
 public:
  enum class Mode { Overlay, SmallMultiples };

  ComparePage(Comparison* comparison, ComparisonSets* sets, QWidget* parent = nullptr);

  // Compares these runs; a message under the controls says what was left out and why.
  void compareRuns(const QStringList& runDirs);
  void setMode(Mode mode);
  void setXAxis(CompareX axis);
  void setSmoothing(double weight);  // 0..0.99
  void setLogScale(bool on);
  void setGridMetric(CompareMetric metric);
  // Saves the compared runs as a named set / compares a saved set; an error text or empty.
  QString saveSet(const QString& name);
  QString openSet(const QString& name);

  Mode mode() const { return m_mode; }
  QList<CompareChart*> overlayCharts() const { return m_overlay; }
  QList<CompareChart*> gridCharts() const { return m_grid; }
  CompareTables* tables() const { return m_tables; }
  void redrawNow();  // what the 40 ms timer does, at once (tests, screenshots)

 signals:
  void runActivated(const QString& runDir);

 private:
  QWidget* buildControls();
  QWidget* buildSetsBar();
  void scheduleRedraw();
  void rebuildGrid();
  void refreshLegend();
  void refreshSetChooser(const QString& current = {});
  QVector<CompareLine> linesFor(CompareMetric metric) const;
  CompareLine lineFor(int run, CompareMetric metric) const;
  void markAllDirty();
  void fitCharts(const QList<CompareChart*>& charts, bool shareY);
  void syncX(CompareChart* source, const QCPRange& range);
  void showMessage(const QString& text);

  Comparison* m_comparison;
  ComparisonSets* m_sets;
  QList<CompareChart*> m_overlay;  // train loss, val loss, lr, tokens/s, grad norm
  QList<CompareMetric> m_overlayMetrics;
  QList<CompareChart*> m_grid;  // one per run
  QStackedWidget* m_stack;
  QWidget* m_gridHost;
  QGridLayout* m_gridLayout;
  QListWidget* m_legend;
  CompareTables* m_tables;
  QComboBox* m_modeChooser;
  QComboBox* m_gridMetricChooser;
  QComboBox* m_xChooser;
  QSlider* m_smoothing;
  QCheckBox* m_logScale;
  QComboBox* m_setChooser;
  QLabel* m_message;
  QTimer m_redrawTimer;

  Mode m_mode = Mode::Overlay;
  CompareX m_x = CompareX::Step;
  CompareMetric m_gridMetric = CompareMetric::TrainLoss;
  double m_smoothingWeight = 0.6;
  bool m_log = false;
  bool m_syncing = false;
  // What the next redraw must rebuild: every line (a setting or the runs changed), or only the
  // lines of the runs whose metrics grew.
  bool m_allDirty = true;
  QSet<int> m_dirtyRuns;
};

}  // namespace traindeck
