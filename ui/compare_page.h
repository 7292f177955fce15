// The Compare page: any number of runs side by side, TrainDeck's and other tools'. Overlay
// charts, one per metric picked by name (train loss, val loss, learning rate, tokens/s and
// gradient norm at first; any scalar any run has): a line per run in its colour, or per group of
// runs (by config keys, source or a name pattern) a mean or median line with a band. Or small
// multiples (a chart per run or group for one metric, shared axes); x by step, tokens, elapsed or
// wall-clock time; log scale; smoothing (TensorBoard's EMA, or a window in x units); zoom and pan
// synced across charts; a crosshair listing each line's value. Runs coloured by run, config key,
// metric or by hand; the run under the pointer (on any chart, the legend or the summary)
// highlighted on every chart. Under the charts: the summary and config-diff tables. Named sets
// save and reopen a selection.
// Holds no run data: it draws what the Comparison (owned by the window) holds, at most every 40 ms.
#pragma once

#include <QSet>
#include <QTimer>
#include <QWidget>

#include "compare_chart.h"
#include "compare_lines.h"
#include "runs/metric_series.h"
#include "runs/run_colours.h"

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

class CompareColourBar;
class CompareGroupBar;
class CompareLegend;
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
  void setSmoothing(double weight);  // TensorBoard's EMA, 0..0.99
  void setSmoothingKind(CompareSmoothing::Kind kind);
  // The x-unit window as a fraction of the compared runs' x span (0 = off, up to 1); the window
  // in the axis unit is smoothingWindow() after a redraw, shown beside the slider.
  void setSmoothingWindowFraction(double fraction);
  double smoothingWindow() const { return m_smoothing.window; }
  void setLogScale(bool on);
  void setGridMetric(CompareMetric metric);
  void setGridMetricName(const QString& name);
  // The overlay's charts, one per metric name, in this order.
  void setOverlayMetrics(const QStringList& names);
  QStringList overlayMetrics() const { return m_overlayMetrics; }
  // Every metric the picker offers: the compared runs' union, the mapped names first.
  QStringList metricChoices() const;
  void setGrouping(const CompareGrouping& grouping);
  const QVector<RunGroup>& groups() const { return m_groups; }  // a group per run when not grouped
  void setColourBy(const ColourBy& by);
  // The run (or group) whose lines every chart highlights; none: every line as usual.
  void setHovered(const LineOwner& owner);
  LineOwner hovered() const { return m_hovered; }
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
  void rebuildOverlay();
  void refreshMetricPicker();
  void refreshGroups();
  void refreshSmoothingControls();
  void scheduleRedraw();
  void rebuildGrid();
  void refreshLegend();
  void refreshColourBar();
  QStringList colourChoices(ColourBy::Kind kind) const;
  void refreshSetChooser(const QString& current = {});
  CompareLine lineFor(int run, const QString& metric) const;
  QVector<CompareLine> groupLinesFor(int group, const QString& metric) const;
  void markAllDirty();
  void fitCharts(const QList<CompareChart*>& charts, bool shareY);
  // The x range the group bands' grid covers (lo > hi: the whole span); marks every line dirty when it moved.
  void setBandRange(double lo, double hi);
  void syncX(CompareChart* source, const QCPRange& range);
  void showMessage(const QString& text);

  Comparison* m_comparison;
  ComparisonSets* m_sets;
  QList<CompareChart*> m_overlay;  // one per m_overlayMetrics
  QStringList m_overlayMetrics;
  QList<CompareChart*> m_grid;  // one per run, or per group when grouped
  QStackedWidget* m_stack;
  QWidget* m_overlayHost;
  QGridLayout* m_overlayLayout;
  QWidget* m_gridHost;
  QGridLayout* m_gridLayout;
  CompareLegend* m_legend;
  QListWidget* m_metricPicker;
  QStringList m_metricPickerChoices;  // what the picker lists now
  CompareTables* m_tables;
  QComboBox* m_modeChooser;
  QComboBox* m_gridMetricChooser;
  QComboBox* m_xChooser;
  QSlider* m_smoothingSlider;
  QComboBox* m_smoothingKind;
  QLabel* m_windowLabel;
  QCheckBox* m_logScale;
  CompareGroupBar* m_groupBar;
  CompareColourBar* m_colourBar;
  QComboBox* m_setChooser;
  QLabel* m_message;
  QTimer m_redrawTimer;

  Mode m_mode = Mode::Overlay;
  CompareX m_x = CompareX::Step;
  QString m_gridMetric = QStringLiteral("loss");
  CompareSmoothing m_smoothing;
  double m_windowFraction = 0.02;
  CompareGrouping m_grouping;
  QVector<RunGroup> m_groups;
  QString m_groupError;
  LineOwner m_hovered;  // the one hovered state: every chart's emphasis is drawn from it
  bool m_log = false;
  bool m_syncing = false;
  // What the next redraw must rebuild: every line (a setting or the runs changed), or only the
  // lines of the runs whose metrics grew.
  bool m_allDirty = true;
  QSet<int> m_dirtyRuns;
};

}  // namespace traindeck
