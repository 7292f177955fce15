// The Monitor page: a run's training as it happens. Big figures (step, loss, tokens/s, MFU) and
// a progress bar with ETA on top; charts of loss (with val loss), learning rate, tokens/s,
// gradient norm, and each rank's device utilization and memory; event markers; and a chart of
// any other metric the run has, chosen by name from the Charts menu (step time, MFU, another
// tool's val_acc). Another tool's run shows the charts of the metrics it has. The page draws
// what it is shown and holds no run state; showMetrics() may come often, redraws are batched.
#pragma once

#include <QTimer>
#include <QWidget>
#include <map>
#include <memory>
#include <vector>

#include "runlog/metrics_batch.h"
#include "runs/metric_series.h"
#include "runs/metrics_store.h"
#include "runs/run_pauses.h"
#include "smoothing.h"

class QComboBox;
class QCheckBox;
class QLabel;
class QProgressBar;
class QSlider;
class QGridLayout;
class QToolButton;

namespace traindeck {

class MetricChart;
class NamedMetricChart;

// A run's metrics as the page reads them: views into a store that outlives the call.
struct MetricsView {
  const TrainColumns* train = nullptr;
  const EvalColumns* eval = nullptr;
  const std::map<int, std::vector<SystemPoint>>* system = nullptr;  // per rank
  const std::vector<EventPoint>* events = nullptr;
  const MetricsStore* store = nullptr;  // the whole store, for metrics by name; none: only the fixed charts
  bool imported = false;                // another tool's run: charts of metrics it lacks are hidden
  RunHeader header;
  QString status;  // run.json's status: running, finished, ...
  bool linkLost = false;  // a remote run whose link is down: nothing new comes for now
  // What owns the store (the run's shared session): the page holds it while it shows the view,
  // so the pointers above stay valid. Empty when the caller keeps the store alive itself.
  std::shared_ptr<const void> owner;
};

// A view of everything `store` holds; `owner` keeps it alive.
MetricsView metricsViewOf(const MetricsStore& store, const QString& status = {},
                          std::shared_ptr<const void> owner = {});

class MonitorPage : public QWidget {
  Q_OBJECT
 public:
  using XAxis = CompareX;  // the axes of app/runs' metric series; this page offers the first three

  explicit MonitorPage(QWidget* parent = nullptr);
  ~MonitorPage() override;

  // The view's store lives in the GUI thread and outlives the page's use of it; the redraw
  // reads it at most every 40 ms, however often this is called.
  void showMetrics(const MetricsView& view);
  void clear();
  void setXAxis(XAxis axis);
  void setSmoothing(double weight);  // 0..0.99

  // Every chart: the six fixed ones in the order below, then those chosen by name.
  QList<MetricChart*> charts() const { return m_charts; }

  // The charts chosen, by name: the fixed ones ("loss" with val loss, "lr", "tokens_per_s",
  // "grad_norm", "device_util", "device_memory") and any metric a run has by its name (kept
  // while runs change: a chart of a metric the shown run lacks is hidden, and so are the fixed
  // ones for another tool's run that lacks theirs).
  static QStringList defaultChartNames();
  QStringList chartNames() const { return m_chosen; }
  void setChartNames(const QStringList& names);
  // What the Charts menu offers for the run shown: the fixed charts, its other metrics, and any
  // other chart chosen.
  QStringList offeredChartNames() const;
  // The chart of that name: a fixed one, or one chosen by name; nullptr otherwise.
  MetricChart* chart(const QString& name) const;
  // Chosen, and shown for the run on the page.
  bool isChartShown(const QString& name) const;

  // Every chart as PNG, SVG or PDF (by `extension`) into `folder`; metrics as CSV with `csvPath`.
  bool exportCharts(const QString& folder, const QString& extension);
  bool exportCsv(const QString& path) const;

 signals:
  void chartNamesChanged(const QStringList& names);

 private:
  void redraw();
  void showChartsMenu();
  // Lays the charts out anew when which of them are shown changed.
  void updateShownCharts();
  bool shouldShow(const QString& name) const;
  void drawTrain(const TrainColumns& train, double t0, const std::vector<Pause>& pauses);
  // The points drawn are the first of `train` (a run grown since, or the same).
  bool drawnLeadOf(const TrainColumns& train) const;
  void exportAll();

  MetricChart* m_loss;
  MetricChart* m_lr;
  MetricChart* m_throughput;
  MetricChart* m_gradNorm;
  MetricChart* m_deviceUtil;
  MetricChart* m_deviceMemory;
  QList<MetricChart*> m_charts;
  QLabel* m_stepValue;
  QLabel* m_lossValue;
  QLabel* m_throughputValue;
  QLabel* m_mfuValue;
  QProgressBar* m_progress;
  QLabel* m_eta;
  QComboBox* m_xAxisChooser;
  QSlider* m_smoothing;
  QCheckBox* m_logScale;
  QTimer m_redrawTimer;
  QGridLayout* m_grid;
  QToolButton* m_chartsButton;
  QStringList m_chosen;
  bool m_ignoreOutliers = false;
  std::vector<std::unique_ptr<NamedMetricChart>> m_named;  // the chosen charts that are none of the fixed
  QList<MetricChart*> m_shown;                              // in the grid now, in order
  // The metric names the view's store has, and the store's size when they were taken.
  QStringList m_present;
  std::size_t m_presentPoints = 0;
  const MetricsStore* m_presentStore = nullptr;

  MetricsView m_view;
  XAxis m_xAxis = XAxis::Step;
  double m_smoothingWeight = 0.6;

  // What the train charts hold, so that a redraw of a growing run adds only the records that
  // came since (a long run's history is not rebuilt 25 times a second). Anything else (another
  // run, a resume that rewrote steps, a new axis or smoothing) draws everything again.
  struct DrawnTrain {
    const TrainColumns* source = nullptr;
    std::size_t count = 0;
    std::int64_t lastStep = 0;
    double lastTime = 0;
    double t0 = 0;
    XAxis axis = XAxis::Step;
    double smoothing = 0;
    DebiasedEma loss, throughput, gradNorm;
  };
  DrawnTrain m_drawn;
  bool m_followAnew = false;  // another run is shown: every chart follows its data again
};

}  // namespace traindeck
