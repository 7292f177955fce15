// Redraws rebuild every line from the runs' stores (cheap next to a replot); when the user has
// not zoomed, each redraw fits the charts: one x range for all of them, y per chart in overlay
// mode and shared across the grid in small-multiples mode.
#include "compare_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <cmath>
#include <optional>

#include "chart_style.h"
#include "compare_chart.h"
#include "compare_tables.h"
#include "runs/comparison.h"
#include "runs/comparison_sets.h"
#include "runs/metrics_store.h"
#include "smoothing.h"

namespace traindeck {

namespace {

struct MetricInfo {
  CompareMetric metric;
  const char* title;
  const char* unit;
  bool smoothed;  // the slider applies (noisy per-step values)
};

const MetricInfo kMetrics[] = {
    {CompareMetric::TrainLoss, QT_TRANSLATE_NOOP("ComparePage", "Train loss"), "nats", true},
    {CompareMetric::ValLoss, QT_TRANSLATE_NOOP("ComparePage", "Val loss"), "nats", false},
    {CompareMetric::LearningRate, QT_TRANSLATE_NOOP("ComparePage", "Learning rate"), "lr", false},
    {CompareMetric::TokensPerSecond, QT_TRANSLATE_NOOP("ComparePage", "Throughput"), "tokens/s", true},
    {CompareMetric::GradNorm, QT_TRANSLATE_NOOP("ComparePage", "Gradient norm"), "norm", true},
};

const MetricInfo& infoOf(CompareMetric metric) {
  return kMetrics[static_cast<int>(metric)];
}

QString xLabel(CompareX axis) {
  switch (axis) {
    case CompareX::Step:
      return ComparePage::tr("Step");
    case CompareX::Tokens:
      return ComparePage::tr("Tokens");
    case CompareX::Elapsed:
      return ComparePage::tr("Elapsed (s)");
    case CompareX::WallClock:
      return ComparePage::tr("Time");
  }
  return {};
}

QCPRange padded(const QCPRange& r, bool log) {
  if (log) return QCPRange(r.lower / 1.1, r.upper * 1.1);
  const double floor = std::max(std::abs(r.center()) * 0.05, 1e-12);
  const QCPRange wide = r.size() < floor ? QCPRange(r.center() - floor, r.center() + floor) : r;
  return QCPRange(wide.lower - wide.size() * 0.04, wide.upper + wide.size() * 0.04);
}

}  // namespace

ComparePage::ComparePage(Comparison* comparison, ComparisonSets* sets, QWidget* parent)
    : QWidget(parent), m_comparison(comparison), m_sets(sets) {
  setObjectName("comparePage");
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(buildSetsBar());
  layout->addWidget(buildControls());
  m_message = new QLabel(this);
  m_message->setObjectName("compareMessage");
  m_message->setWordWrap(true);
  m_message->setStyleSheet("color: #b35c00");
  m_message->hide();
  layout->addWidget(m_message);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  m_stack = new QStackedWidget(splitter);
  auto* overlayHost = new QWidget(m_stack);
  auto* overlayGrid = new QGridLayout(overlayHost);
  overlayGrid->setContentsMargins(0, 0, 0, 0);
  for (const MetricInfo& info : kMetrics) {
    auto* chart = new CompareChart(tr(info.title), info.unit, overlayHost);
    overlayGrid->addWidget(chart, m_overlay.size() / 3, m_overlay.size() % 3);
    m_overlay << chart;
    m_overlayMetrics << info.metric;
  }
  m_legend = new QListWidget(overlayHost);
  m_legend->setObjectName("compareLegend");
  m_legend->setSelectionMode(QAbstractItemView::NoSelection);
  m_legend->setToolTip(tr("Each run's colour, the same in every chart and table."));
  m_legend->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
  overlayGrid->addWidget(m_legend, 1, 2);
  for (int i = 0; i < 3; ++i) overlayGrid->setColumnStretch(i, 1);
  for (int i = 0; i < 2; ++i) overlayGrid->setRowStretch(i, 1);
  m_stack->addWidget(overlayHost);

  auto* scroll = new QScrollArea(m_stack);
  scroll->setWidgetResizable(true);
  m_gridHost = new QWidget(scroll);
  m_gridLayout = new QGridLayout(m_gridHost);
  m_gridLayout->setContentsMargins(0, 0, 0, 0);
  scroll->setWidget(m_gridHost);
  m_stack->addWidget(scroll);

  m_tables = new CompareTables(comparison, splitter);
  splitter->addWidget(m_stack);
  splitter->addWidget(m_tables);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  layout->addWidget(splitter, 1);

  for (CompareChart* chart : m_overlay) {
    connect(chart, &CompareChart::xRangeChangedByUser, this, [this, chart](const QCPRange& r) { syncX(chart, r); });
    connect(chart, &CompareChart::crosshairMoved, this, [this](double x) {
      for (CompareChart* c : m_overlay) c->showCrosshair(x);
    });
    connect(chart, &CompareChart::crosshairLeft, this, [this] {
      for (CompareChart* c : m_overlay) c->hideCrosshair();
    });
    connect(chart, &CompareChart::followingRequested, this, [this] {
      for (CompareChart* c : m_overlay) c->setFollowing(true);
      redrawNow();
    });
  }
  m_redrawTimer.setSingleShot(true);
  m_redrawTimer.setInterval(40);
  connect(&m_redrawTimer, &QTimer::timeout, this, &ComparePage::redrawNow);
  connect(m_comparison, &Comparison::runsChanged, this, [this] {
    rebuildGrid();
    refreshLegend();
    for (CompareChart* c : m_overlay) c->setFollowing(true);
    markAllDirty();
  });
  connect(m_comparison, &Comparison::metricsChanged, this, [this](int run) {
    m_dirtyRuns.insert(run);
    scheduleRedraw();
  });
  connect(m_comparison, &Comparison::summaryChanged, this, &ComparePage::refreshLegend);
  connect(m_tables, &CompareTables::runActivated, this, &ComparePage::runActivated);
  refreshSetChooser();
  rebuildGrid();
  refreshLegend();
  setXAxis(m_x);
}

QWidget* ComparePage::buildSetsBar() {
  auto* bar = new QWidget(this);
  auto* row = new QHBoxLayout(bar);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(new QLabel(tr("Comparison set:"), bar));
  m_setChooser = new QComboBox(bar);
  m_setChooser->setObjectName("compareSets");
  m_setChooser->setMinimumContentsLength(18);
  m_setChooser->setToolTip(tr("Saved selections of runs; choose one to compare its runs again."));
  connect(m_setChooser, &QComboBox::activated, this, [this](int index) {
    if (index > 0) showMessage(openSet(m_setChooser->itemText(index)));
  });
  row->addWidget(m_setChooser);
  auto* save = new QPushButton(tr("Save set…"), bar);
  save->setObjectName("compareSaveSet");
  connect(save, &QPushButton::clicked, this, [this] {
    bool ok = false;
    const QString name =
        QInputDialog::getText(this, tr("Save comparison set"), tr("Name:"), QLineEdit::Normal,
                              m_setChooser->currentIndex() > 0 ? m_setChooser->currentText() : QString(), &ok);
    if (ok) showMessage(saveSet(name));
  });
  row->addWidget(save);
  auto* remove = new QPushButton(tr("Delete set"), bar);
  remove->setObjectName("compareDeleteSet");
  connect(remove, &QPushButton::clicked, this, [this] {
    if (m_setChooser->currentIndex() <= 0) return;
    showMessage(m_sets->remove(m_setChooser->currentText()));
    refreshSetChooser();
  });
  row->addWidget(remove);
  row->addStretch(1);
  return bar;
}

QWidget* ComparePage::buildControls() {
  auto* bar = new QWidget(this);
  auto* row = new QHBoxLayout(bar);
  row->setContentsMargins(0, 0, 0, 0);
  m_modeChooser = new QComboBox(bar);
  m_modeChooser->setObjectName("compareMode");
  m_modeChooser->addItems({tr("Overlay"), tr("Small multiples")});
  m_modeChooser->setToolTip(tr("Overlay: every run in each chart. Small multiples: a chart per run, same axes."));
  row->addWidget(m_modeChooser);
  m_gridMetricChooser = new QComboBox(bar);
  m_gridMetricChooser->setObjectName("compareGridMetric");
  for (const MetricInfo& info : kMetrics) m_gridMetricChooser->addItem(tr(info.title));
  m_gridMetricChooser->setToolTip(tr("What the small multiples show."));
  m_gridMetricChooser->setEnabled(false);
  row->addWidget(m_gridMetricChooser);
  row->addSpacing(12);
  row->addWidget(new QLabel(tr("X axis:"), bar));
  m_xChooser = new QComboBox(bar);
  m_xChooser->setObjectName("compareX");
  for (CompareX axis : {CompareX::Step, CompareX::Tokens, CompareX::Elapsed, CompareX::WallClock})
    m_xChooser->addItem(xLabel(axis));
  row->addWidget(m_xChooser);
  row->addSpacing(12);
  row->addWidget(new QLabel(tr("Smoothing:"), bar));
  m_smoothing = new QSlider(Qt::Horizontal, bar);
  m_smoothing->setObjectName("compareSmoothing");
  m_smoothing->setRange(0, 99);
  m_smoothing->setValue(static_cast<int>(m_smoothingWeight * 100));
  m_smoothing->setMaximumWidth(160);
  m_smoothing->setToolTip(tr("Weight of the debiased moving average over train loss, throughput and gradient norm."));
  row->addWidget(m_smoothing);
  m_logScale = new QCheckBox(tr("Log scale"), bar);
  m_logScale->setObjectName("compareLogScale");
  row->addWidget(m_logScale);
  row->addStretch(1);
  auto* hint = new QLabel(tr("Drag or wheel to zoom every chart; double-click to fit."), bar);
  hint->setEnabled(false);
  hint->setToolTip(hint->text());
  hint->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // a hint never widens the window
  row->addWidget(hint, 1);

  connect(m_modeChooser, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int index) { setMode(static_cast<Mode>(index)); });
  connect(m_gridMetricChooser, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int index) { setGridMetric(static_cast<CompareMetric>(index)); });
  connect(m_xChooser, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int index) { setXAxis(static_cast<CompareX>(index)); });
  connect(m_smoothing, &QSlider::valueChanged, this, [this](int v) { setSmoothing(v / 100.0); });
  connect(m_logScale, &QCheckBox::toggled, this, &ComparePage::setLogScale);
  return bar;
}

void ComparePage::compareRuns(const QStringList& runDirs) {
  showMessage(m_comparison->setRuns(runDirs));
  m_setChooser->setCurrentIndex(0);
}

void ComparePage::setMode(Mode mode) {
  m_mode = mode;
  m_stack->setCurrentIndex(static_cast<int>(mode));
  m_gridMetricChooser->setEnabled(mode == Mode::SmallMultiples);
  if (m_modeChooser->currentIndex() != static_cast<int>(mode)) m_modeChooser->setCurrentIndex(static_cast<int>(mode));
  markAllDirty();
}

void ComparePage::setXAxis(CompareX axis) {
  m_x = axis;
  if (m_xChooser->currentIndex() != static_cast<int>(axis)) m_xChooser->setCurrentIndex(static_cast<int>(axis));
  for (CompareChart* c : m_overlay + m_grid) {
    c->setWallClockX(axis == CompareX::WallClock, xLabel(axis));
    c->setFollowing(true);  // the old range means nothing on the new axis
  }
  markAllDirty();
}

void ComparePage::setSmoothing(double weight) {
  m_smoothingWeight = std::clamp(weight, 0.0, 0.99);
  const int slider = static_cast<int>(std::lround(m_smoothingWeight * 100));
  if (m_smoothing->value() != slider) m_smoothing->setValue(slider);
  markAllDirty();
}

void ComparePage::setLogScale(bool on) {
  m_log = on;
  if (m_logScale->isChecked() != on) m_logScale->setChecked(on);
  for (CompareChart* c : m_overlay + m_grid) c->setLogScale(on);
  markAllDirty();
}

void ComparePage::setGridMetric(CompareMetric metric) {
  m_gridMetric = metric;
  if (m_gridMetricChooser->currentIndex() != static_cast<int>(metric))
    m_gridMetricChooser->setCurrentIndex(static_cast<int>(metric));
  for (CompareChart* c : m_grid) c->setFollowing(true);
  markAllDirty();
}

QString ComparePage::saveSet(const QString& name) {
  if (m_comparison->size() == 0) return tr("Select runs to compare before saving a set");
  const QString error = m_sets->save({name.trimmed(), m_comparison->runDirs()});
  if (error.isEmpty()) refreshSetChooser(name.trimmed());
  return error;
}

QString ComparePage::openSet(const QString& name) {
  const ComparisonSet* set = m_sets->find(name);
  if (!set) return tr("No comparison set named \"%1\"").arg(name);
  const QString leftOut = m_comparison->setRuns(set->runDirs);
  refreshSetChooser(name);
  return leftOut;
}

void ComparePage::refreshSetChooser(const QString& current) {
  const QString error = m_sets->load();
  if (!error.isEmpty()) showMessage(error);
  m_setChooser->clear();
  m_setChooser->addItem(tr("(unsaved)"));
  for (const ComparisonSet& set : m_sets->sets()) m_setChooser->addItem(set.name);
  const int index = m_setChooser->findText(current);
  m_setChooser->setCurrentIndex(index > 0 ? index : 0);
}

void ComparePage::showMessage(const QString& text) {
  m_message->setText(text);
  m_message->setVisible(!text.isEmpty());
}

void ComparePage::refreshLegend() {
  m_legend->clear();
  for (int i = 0; i < m_comparison->size(); ++i) {
    const ComparedRun& run = m_comparison->run(i);
    QPixmap swatch(14, 14);
    swatch.fill(comparisonColor(run.colorSlot));
    auto* item =
        new QListWidgetItem(QIcon(swatch), QStringLiteral("%1  (%2)").arg(run.label, run.summary.statusName()));
    item->setToolTip(run.runDir);
    m_legend->addItem(item);
  }
}

void ComparePage::rebuildGrid() {
  qDeleteAll(m_grid);
  m_grid.clear();
  const int runs = m_comparison->size();
  const int columns = runs <= 4 ? std::max(1, runs) : runs <= 9 ? 3 : 4;
  for (int i = 0; i < runs; ++i) {
    auto* chart = new CompareChart(m_comparison->run(i).label, infoOf(m_gridMetric).unit, m_gridHost);
    chart->setMinimumHeight(180);
    chart->setLogScale(m_log);
    chart->setWallClockX(m_x == CompareX::WallClock, xLabel(m_x));
    m_gridLayout->addWidget(chart, i / columns, i % columns);
    connect(chart, &CompareChart::xRangeChangedByUser, this, [this, chart](const QCPRange& r) { syncX(chart, r); });
    connect(chart, &CompareChart::followingRequested, this, [this] {
      for (CompareChart* c : m_grid) c->setFollowing(true);
      redrawNow();
    });
    m_grid << chart;
  }
}

void ComparePage::scheduleRedraw() {
  if (!m_redrawTimer.isActive()) m_redrawTimer.start();
}

void ComparePage::markAllDirty() {
  m_allDirty = true;
  scheduleRedraw();
}

CompareLine ComparePage::lineFor(int run, CompareMetric metric) const {
  const ComparedRun& r = m_comparison->run(run);
  MetricSeries series = metricSeries(m_comparison->store(run), metric, m_x);
  CompareLine line{r.label, comparisonColor(r.colorSlot), std::move(series.x), std::move(series.y), {}};
  if (infoOf(metric).smoothed && m_smoothingWeight > 0) {
    const std::vector<double> smoothed =
        debiasedEma(std::vector<double>(line.y.begin(), line.y.end()), m_smoothingWeight);
    line.rawY = std::move(line.y);
    line.y = QVector<double>(smoothed.begin(), smoothed.end());
  }
  return line;
}

QVector<CompareLine> ComparePage::linesFor(CompareMetric metric) const {
  QVector<CompareLine> lines;
  for (int i = 0; i < m_comparison->size(); ++i) lines.push_back(lineFor(i, metric));
  return lines;
}

void ComparePage::redrawNow() {
  m_redrawTimer.stop();
  QElapsedTimer clock;
  clock.start();
  // Only what changed is rebuilt: with long runs, copying every line at each batch of a live
  // run would cost more than drawing.
  QList<int> runs;
  for (int i = 0; i < m_comparison->size(); ++i)
    if (m_allDirty || m_dirtyRuns.contains(i)) runs << i;
  if (m_mode == Mode::Overlay) {
    for (int c = 0; c < m_overlay.size(); ++c) {
      m_overlay[c]->setLineCount(m_comparison->size());
      for (int run : runs) m_overlay[c]->setLine(run, lineFor(run, m_overlayMetrics[c]));
      m_overlay[c]->setShowLegend(false);  // the legend beside the charts names every run once
    }
    fitCharts(m_overlay, /*shareY=*/false);
  } else {
    const MetricInfo& info = infoOf(m_gridMetric);
    for (int run : runs) {
      if (run >= m_grid.size()) continue;
      const CompareLine line = lineFor(run, m_gridMetric);
      m_grid[run]->setTitle(QStringLiteral("%1 · %2").arg(line.name, tr(info.title)), line.color);
      m_grid[run]->yAxis->setLabel(info.unit);
      m_grid[run]->setLines({line});
    }
    fitCharts(m_grid, /*shareY=*/true);
  }
  // The other mode's charts were not updated: they are rebuilt when shown.
  m_allDirty = false;
  m_dirtyRuns.clear();
  m_redrawTimer.setInterval(nextRedrawIntervalMs(clock, m_mode == Mode::Overlay ? m_overlay : m_grid));
}

void ComparePage::fitCharts(const QList<CompareChart*>& charts, bool shareY) {
  // One x range for all (the union of their data), so the charts line up; y per chart, or the
  // union of all with shared axes. Each chart's data is scanned once.
  const auto unite = [](std::optional<QCPRange>& into, const QCPRange& r) {
    into = into ? QCPRange(std::min(into->lower, r.lower), std::max(into->upper, r.upper)) : r;
  };
  std::optional<QCPRange> x, y;
  QVector<std::optional<QCPRange>> own;
  for (CompareChart* c : charts) {
    bool found = false;
    const QCPRange rx = c->dataXRange(found);
    if (found) unite(x, rx);
    const QCPRange ry = c->dataYRange(found);
    own.push_back(found ? std::optional<QCPRange>(ry) : std::nullopt);
    if (found) unite(y, ry);
  }
  if (x && x->size() < 1) x = QCPRange(x->lower - 1, x->upper + 1);
  for (int i = 0; i < charts.size(); ++i) {
    CompareChart* c = charts[i];
    if (c->following() && x) {
      c->xAxis->setRange(*x);
      if (std::optional<QCPRange> range = shareY ? y : own[i]) {
        if (m_log) range->lower = std::max(range->lower, range->upper * 1e-6);
        c->yAxis->setRange(padded(*range, m_log));
      }
    }
    c->replot(QCustomPlot::rpQueuedReplot);
  }
}

void ComparePage::syncX(CompareChart* source, const QCPRange& range) {
  if (m_syncing) return;
  m_syncing = true;
  const QList<CompareChart*> charts = m_overlay.contains(source) ? m_overlay : m_grid;
  for (CompareChart* c : charts) {
    c->setFollowing(false);
    if (c == source) continue;
    c->xAxis->setRange(range);
    c->replot(QCustomPlot::rpQueuedReplot);
  }
  m_syncing = false;
}

}  // namespace traindeck
