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
#include "compare_colour_bar.h"
#include "compare_colour_picker.h"
#include "compare_group_bar.h"
#include "compare_legend.h"
#include "compare_lines.h"
#include "compare_tables.h"
#include "runs/comparison.h"
#include "runs/comparison_sets.h"
#include "runs/metrics_store.h"
#include "smoothing.h"

namespace traindeck {

namespace {

// The overlay's charts before the user picks: the five metrics the page always showed.
const CompareMetric kDefaultOverlay[] = {CompareMetric::TrainLoss, CompareMetric::ValLoss, CompareMetric::LearningRate,
                                         CompareMetric::TokensPerSecond, CompareMetric::GradNorm};

// What a chart's y axis says: the unit where the metric has one.
QString comparedUnit(const QString& metric) {
  if (metric == QLatin1String("loss") || metric == QLatin1String("val_loss")) return QStringLiteral("nats");
  if (metric == QLatin1String("tokens_per_s")) return QStringLiteral("tokens/s");
  if (metric == QLatin1String("grad_norm")) return QStringLiteral("norm");
  return metric;
}

// The slider's 1..99 as a window of 0.1% to about 30% of the x span (0: off), evenly in log.
double windowFractionOf(int slider) {
  return slider <= 0 ? 0 : std::pow(10.0, -3.0 + 2.5 * (slider - 1) / 98.0);
}

int sliderOfWindowFraction(double fraction) {
  return fraction <= 0 ? 0
                       : std::clamp(static_cast<int>(std::lround(1 + (std::log10(fraction) + 3) * 98 / 2.5)), 1, 99);
}

QString xUnit(CompareX axis) {
  switch (axis) {
    case CompareX::Step:
      return ComparePage::tr("steps");
    case CompareX::Tokens:
      return ComparePage::tr("tokens");
    case CompareX::Elapsed:
    case CompareX::WallClock:
      return ComparePage::tr("s");
  }
  return {};
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
  // Grouping and colouring on rows of their own: side by side they would set the window's
  // minimum width.
  m_groupBar = new CompareGroupBar(this);
  layout->addWidget(m_groupBar);
  m_colourBar = new CompareColourBar(this);
  layout->addWidget(m_colourBar);
  m_message = new QLabel(this);
  m_message->setObjectName("compareMessage");
  m_message->setWordWrap(true);
  m_message->setStyleSheet("color: #b35c00");
  m_message->hide();
  layout->addWidget(m_message);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  m_stack = new QStackedWidget(splitter);
  auto* overlayPage = new QSplitter(Qt::Horizontal, m_stack);
  m_overlayHost = new QWidget(overlayPage);
  m_overlayLayout = new QGridLayout(m_overlayHost);
  m_overlayLayout->setContentsMargins(0, 0, 0, 0);
  auto* side = new QSplitter(Qt::Vertical, overlayPage);
  m_metricPicker = new QListWidget(side);
  m_metricPicker->setObjectName("compareMetrics");
  m_metricPicker->setToolTip(tr("The metrics charted: every scalar any compared run has, the mapped names first."));
  m_legend = new CompareLegend(side);
  side->setStretchFactor(0, 1);
  side->setStretchFactor(1, 2);
  overlayPage->addWidget(m_overlayHost);
  overlayPage->addWidget(side);
  overlayPage->setStretchFactor(0, 5);
  overlayPage->setStretchFactor(1, 1);
  m_stack->addWidget(overlayPage);

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

  for (CompareMetric metric : kDefaultOverlay) m_overlayMetrics << metricName(metric);
  connect(m_metricPicker, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
    const QString name = item->data(Qt::UserRole).toString();
    QStringList names = m_overlayMetrics;
    if (item->checkState() == Qt::Checked && !names.contains(name)) names << name;
    if (item->checkState() != Qt::Checked) names.removeAll(name);
    if (names != m_overlayMetrics) setOverlayMetrics(names);
  });
  m_redrawTimer.setSingleShot(true);
  m_redrawTimer.setInterval(40);
  connect(&m_redrawTimer, &QTimer::timeout, this, &ComparePage::redrawNow);
  connect(m_comparison, &Comparison::runsChanged, this, [this] {
    m_hovered = {};  // its indices meant the runs before
    refreshGroups();
    rebuildGrid();
    refreshLegend();
    refreshMetricPicker();
    m_colourBar->refreshChoices();
    refreshColourBar();
    for (CompareChart* c : m_overlay) c->setFollowing(true);
    markAllDirty();
  });
  connect(m_comparison, &Comparison::coloursChanged, this, [this] {
    refreshColourBar();
    refreshLegend();
    markAllDirty();
  });
  connect(m_comparison, &Comparison::metricsChanged, this, [this](int run) {
    m_dirtyRuns.insert(run);
    scheduleRedraw();
  });
  connect(m_comparison, &Comparison::summaryChanged, this, [this] {
    refreshLegend();
    // Another tool's run read again may bring a metric no run had.
    if (metricChoices() != m_metricPickerChoices) refreshMetricPicker();
  });
  connect(m_tables, &CompareTables::runActivated, this, &ComparePage::runActivated);
  connect(m_groupBar, &CompareGroupBar::groupingChanged, this, &ComparePage::setGrouping);
  connect(m_colourBar, &CompareColourBar::colourByChanged, this, &ComparePage::setColourBy);
  m_colourBar->setChoiceSource([this](ColourBy::Kind kind) { return colourChoices(kind); });
  connect(m_legend, &CompareLegend::lineHovered, this, &ComparePage::setHovered);
  connect(m_tables, &CompareTables::runHovered, this, [this](int run) {
    int group = -1;  // grouped, the run's group is highlighted with it
    for (int g = 0; g < m_groups.size() && m_grouping.active() && run >= 0; ++g)
      if (m_groups[g].members.contains(run)) group = g;
    setHovered({.run = run, .group = group});
  });
  const auto colourMenu = [this](const QVector<int>& runs, const QPoint& at) {
    showRunColourMenu(this, at, *m_comparison, runs);
  };
  connect(m_legend, &CompareLegend::colourMenuRequested, this, colourMenu);
  connect(m_tables, &CompareTables::colourMenuRequested, this, colourMenu);
  refreshSetChooser();
  rebuildOverlay();
  refreshGroups();
  rebuildGrid();
  refreshLegend();
  refreshMetricPicker();
  refreshColourBar();
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
  m_modeChooser->setToolTip(
      tr("Overlay: every run (or group) in each chart. Small multiples: a chart per run or group, same axes."));
  row->addWidget(m_modeChooser);
  m_gridMetricChooser = new QComboBox(bar);
  m_gridMetricChooser->setObjectName("compareGridMetric");
  m_gridMetricChooser->setToolTip(tr("What the small multiples show."));
  m_gridMetricChooser->setEnabled(false);
  m_gridMetricChooser->setSizeAdjustPolicy(QComboBox::AdjustToContents);
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
  m_smoothingKind = new QComboBox(bar);
  m_smoothingKind->setObjectName("compareSmoothingKind");
  m_smoothingKind->addItems({tr("EMA"), tr("Window in x")});
  m_smoothingKind->setToolTip(
      tr("EMA: TensorBoard's debiased moving average, a weight per point. Window in x: an average whose decay "
         "follows the x spacing, so runs logged at different intervals smooth alike."));
  row->addWidget(m_smoothingKind);
  m_smoothingSlider = new QSlider(Qt::Horizontal, bar);
  m_smoothingSlider->setObjectName("compareSmoothing");
  m_smoothingSlider->setRange(0, 99);
  m_smoothingSlider->setValue(static_cast<int>(m_smoothing.weight * 100));
  m_smoothingSlider->setMaximumWidth(160);
  row->addWidget(m_smoothingSlider);
  m_windowLabel = new QLabel(bar);
  m_windowLabel->setObjectName("compareSmoothingWindow");
  row->addWidget(m_windowLabel);
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
  connect(m_gridMetricChooser, qOverload<int>(&QComboBox::activated), this,
          [this](int index) { setGridMetricName(m_gridMetricChooser->itemData(index).toString()); });
  connect(m_xChooser, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int index) { setXAxis(static_cast<CompareX>(index)); });
  connect(m_smoothingKind, qOverload<int>(&QComboBox::activated), this,
          [this](int index) { setSmoothingKind(static_cast<CompareSmoothing::Kind>(index)); });
  connect(m_smoothingSlider, &QSlider::valueChanged, this, [this](int v) {
    if (m_smoothing.kind == CompareSmoothing::Kind::Ema)
      setSmoothing(v / 100.0);
    else
      setSmoothingWindowFraction(windowFractionOf(v));
  });
  connect(m_logScale, &QCheckBox::toggled, this, &ComparePage::setLogScale);
  refreshSmoothingControls();
  return bar;
}

void ComparePage::setColourBy(const ColourBy& by) {
  m_comparison->setColourBy(by);  // coloursChanged redraws when a colour changed
  refreshColourBar();
}

void ComparePage::refreshColourBar() {
  m_colourBar->showColouring(m_comparison->colourBy(), m_comparison->colours());
}

QStringList ComparePage::colourChoices(ColourBy::Kind kind) const {
  if (kind == ColourBy::Kind::Metric) return m_comparison->metricNames();
  QStringList keys;  // the keys whose values differ first: those are worth colouring by
  QVector<FlatConfig> configs;
  for (int i = 0; i < m_comparison->size(); ++i) configs << m_comparison->run(i).config;
  for (bool differing : {true, false})
    for (const ConfigDiffRow& row : diffConfigs(configs, differing))
      if (!keys.contains(row.key)) keys << row.key;
  return keys;
}

void ComparePage::setHovered(const LineOwner& owner) {
  if (owner == m_hovered) return;
  m_hovered = owner;
  for (CompareChart* c : m_overlay + m_grid) c->setHighlight(m_hovered);
}

void ComparePage::setGrouping(const CompareGrouping& grouping) {
  m_hovered = {};
  const double lo = m_grouping.lo, hi = m_grouping.hi;  // the visible range stays as it is
  m_grouping = grouping;
  m_grouping.lo = lo;
  m_grouping.hi = hi;
  m_groupBar->setGrouping(grouping);
  refreshGroups();
  rebuildGrid();
  refreshLegend();
  markAllDirty();
}

void ComparePage::refreshGroups() {
  const QString before = m_groupError;
  m_groupError.clear();
  m_groups = compareGroups(*m_comparison, m_grouping.by, &m_groupError);
  if (!m_groupError.isEmpty())
    showMessage(m_groupError);
  else if (!before.isEmpty() && m_message->text() == before)
    showMessage({});  // the pattern is right now: its complaint goes
}

void ComparePage::refreshSmoothingControls() {
  const QSignalBlocker blockKind(m_smoothingKind), blockSlider(m_smoothingSlider);
  const bool ema = m_smoothing.kind == CompareSmoothing::Kind::Ema;
  m_smoothingKind->setCurrentIndex(static_cast<int>(m_smoothing.kind));
  m_smoothingSlider->setValue(ema ? static_cast<int>(std::lround(m_smoothing.weight * 100))
                                  : sliderOfWindowFraction(m_windowFraction));
  m_smoothingSlider->setToolTip(ema ? tr("Weight of TensorBoard's debiased moving average (0: off).")
                                    : tr("The window in x units, the same for every run (0: off)."));
  m_windowLabel->setVisible(!ema);
  m_windowLabel->setText(m_smoothing.window > 0
                             ? tr("window %1 %2").arg(QString::number(m_smoothing.window, 'g', 3), xUnit(m_x))
                             : tr("off"));
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
  setBandRange(1, 0);
  markAllDirty();
}

void ComparePage::setSmoothing(double weight) {
  m_smoothing.weight = std::clamp(weight, 0.0, 0.99);
  refreshSmoothingControls();
  markAllDirty();
}

void ComparePage::setSmoothingKind(CompareSmoothing::Kind kind) {
  m_smoothing.kind = kind;
  refreshSmoothingControls();
  markAllDirty();
}

void ComparePage::setSmoothingWindowFraction(double fraction) {
  m_windowFraction = std::clamp(fraction, 0.0, 1.0);
  refreshSmoothingControls();
  markAllDirty();
}

void ComparePage::setLogScale(bool on) {
  m_log = on;
  if (m_logScale->isChecked() != on) m_logScale->setChecked(on);
  for (CompareChart* c : m_overlay + m_grid) c->setLogScale(on);
  markAllDirty();
}

void ComparePage::setGridMetric(CompareMetric metric) {
  setGridMetricName(metricName(metric));
}

void ComparePage::setGridMetricName(const QString& name) {
  m_gridMetric = name;
  if (const int index = m_gridMetricChooser->findData(name); index >= 0) m_gridMetricChooser->setCurrentIndex(index);
  for (CompareChart* c : m_grid) {
    c->setFollowing(true);
    c->yAxis->setLabel(comparedUnit(name));
  }
  markAllDirty();
}

void ComparePage::setOverlayMetrics(const QStringList& names) {
  m_overlayMetrics = names;
  m_overlayMetrics.removeDuplicates();
  rebuildOverlay();
  refreshMetricPicker();
  markAllDirty();
}

QStringList ComparePage::metricChoices() const {
  QStringList defaults;
  for (CompareMetric metric : kDefaultOverlay) defaults << metricName(metric);
  return unionOfMetricNames({defaults, m_comparison->metricNames(), m_overlayMetrics});
}

void ComparePage::refreshMetricPicker() {
  const QSignalBlocker block(m_metricPicker);
  m_metricPicker->clear();
  m_metricPickerChoices = metricChoices();
  for (const QString& name : std::as_const(m_metricPickerChoices)) {
    const QString title = metricTitle(name);
    auto* item =
        new QListWidgetItem(title == name ? name : QStringLiteral("%1  (%2)").arg(title, name), m_metricPicker);
    item->setData(Qt::UserRole, name);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    item->setCheckState(m_overlayMetrics.contains(name) ? Qt::Checked : Qt::Unchecked);
  }
  const QSignalBlocker blockGrid(m_gridMetricChooser);
  m_gridMetricChooser->clear();
  for (const QString& name : std::as_const(m_metricPickerChoices)) m_gridMetricChooser->addItem(metricTitle(name), name);
  m_gridMetricChooser->setCurrentIndex(std::max(0, m_gridMetricChooser->findData(m_gridMetric)));
}

void ComparePage::rebuildOverlay() {
  qDeleteAll(m_overlay);
  m_overlay.clear();
  const int columns = m_overlayMetrics.size() <= 4 ? 2 : 3;
  for (const QString& name : m_overlayMetrics) {
    auto* chart = new CompareChart(metricTitle(name), comparedUnit(name), m_overlayHost);
    chart->setLogScale(m_log);
    chart->setWallClockX(m_x == CompareX::WallClock, xLabel(m_x));
    m_overlayLayout->addWidget(chart, static_cast<int>(m_overlay.size()) / columns,
                               static_cast<int>(m_overlay.size()) % columns);
    chart->show();  // at once: a layout shows a child added to a shown widget only later
    connect(chart, &CompareChart::xRangeChangedByUser, this, [this, chart](const QCPRange& r) { syncX(chart, r); });
    connect(chart, &CompareChart::crosshairMoved, this, [this](double x) {
      for (CompareChart* c : m_overlay) c->showCrosshair(x);
    });
    connect(chart, &CompareChart::crosshairLeft, this, [this] {
      for (CompareChart* c : m_overlay) c->hideCrosshair();
    });
    connect(chart, &CompareChart::followingRequested, this, [this] {
      for (CompareChart* c : m_overlay) c->setFollowing(true);
      setBandRange(1, 0);  // the whole span again
      redrawNow();
    });
    connect(chart, &CompareChart::lineHovered, this, &ComparePage::setHovered);
    m_overlay << chart;
  }
}

QString ComparePage::saveSet(const QString& name) {
  if (m_comparison->size() == 0) return tr("Select runs to compare before saving a set");
  ComparisonSet set{.name = name.trimmed(), .runDirs = m_comparison->runDirs()};
  for (const QString& dir : set.runDirs)
    if (const QColor colour = m_comparison->handColour(dir); colour.isValid()) set.colours.insert(dir, colour);
  const QString error = m_sets->save(set);
  if (error.isEmpty()) refreshSetChooser(name.trimmed());
  return error;
}

QString ComparePage::openSet(const QString& name) {
  const ComparisonSet* set = m_sets->find(name);
  if (!set) return tr("No comparison set named \"%1\"").arg(name);
  const QString leftOut = m_comparison->setRuns(set->runDirs);
  for (auto it = set->colours.begin(); it != set->colours.end(); ++it)
    m_comparison->setHandColour(it.key(), it.value());
  if (!set->colours.isEmpty()) setColourBy({.kind = ColourBy::Kind::ByHand, .key = {}, .statistic = {}});
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
  m_legend->refresh(*m_comparison, m_grouping.active() ? &m_groups : nullptr);
}

void ComparePage::rebuildGrid() {
  qDeleteAll(m_grid);
  m_grid.clear();
  const int charts = m_grouping.active() ? static_cast<int>(m_groups.size()) : m_comparison->size();
  const int columns = charts <= 4 ? std::max(1, charts) : charts <= 9 ? 3 : 4;
  for (int i = 0; i < charts; ++i) {
    const QString title = m_grouping.active() ? m_groups[i].name : m_comparison->run(i).label;
    auto* chart = new CompareChart(title, comparedUnit(m_gridMetric), m_gridHost);
    chart->setMinimumHeight(180);
    chart->setLogScale(m_log);
    chart->setWallClockX(m_x == CompareX::WallClock, xLabel(m_x));
    m_gridLayout->addWidget(chart, i / columns, i % columns);
    connect(chart, &CompareChart::xRangeChangedByUser, this, [this, chart](const QCPRange& r) { syncX(chart, r); });
    connect(chart, &CompareChart::followingRequested, this, [this] {
      for (CompareChart* c : m_grid) c->setFollowing(true);
      setBandRange(1, 0);  // the whole span again
      redrawNow();
    });
    connect(chart, &CompareChart::lineHovered, this, &ComparePage::setHovered);
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

CompareLine ComparePage::lineFor(int run, const QString& metric) const {
  return compareRunLine(*m_comparison, run, metric, m_x, m_smoothing, metricIsSmoothed(metric));
}

QVector<CompareLine> ComparePage::groupLinesFor(int group, const QString& metric) const {
  return compareGroupLines(*m_comparison, m_groups[group], group, metric, m_x, m_smoothing, metricIsSmoothed(metric),
                           m_grouping);
}

void ComparePage::redrawNow() {
  m_redrawTimer.stop();
  QElapsedTimer clock;
  clock.start();
  if (m_smoothing.kind == CompareSmoothing::Kind::XWindow) {
    // One window for every run, from their span on this axis: a live run that grows widens it,
    // and every line is smoothed again.
    const double window = m_windowFraction * compareXSpan(*m_comparison, m_x);
    if (window != m_smoothing.window) m_allDirty = true;
    m_smoothing.window = window;
    refreshSmoothingControls();
  }
  const bool grouped = m_grouping.active();
  // Only what changed is rebuilt: with long runs, copying every line at each batch of a live
  // run would cost more than drawing. A group is rebuilt whole (its band needs every member).
  QList<int> runs;
  for (int i = 0; i < m_comparison->size(); ++i)
    if (m_allDirty || m_dirtyRuns.contains(i)) runs << i;
  if (m_mode == Mode::Overlay) {
    for (int c = 0; c < m_overlay.size(); ++c) {
      if (grouped) {
        if (runs.isEmpty()) continue;
        QVector<CompareLine> lines;
        for (int g = 0; g < m_groups.size(); ++g) lines += groupLinesFor(g, m_overlayMetrics[c]);
        m_overlay[c]->setLines(lines);
      } else {
        m_overlay[c]->setLineCount(m_comparison->size());
        for (int run : runs) m_overlay[c]->setLine(run, lineFor(run, m_overlayMetrics[c]));
      }
      m_overlay[c]->setShowLegend(false);  // the legend beside the charts names every run once
    }
    fitCharts(m_overlay, /*shareY=*/false);
  } else {
    const QString title = metricTitle(m_gridMetric);
    if (grouped) {
      for (int g = 0; g < m_groups.size() && g < m_grid.size() && !runs.isEmpty(); ++g) {
        m_grid[g]->setTitle(QStringLiteral("%1 · %2").arg(m_groups[g].name, title),
                            compareGroupColour(*m_comparison, m_groups[g], g));
        m_grid[g]->setLines(groupLinesFor(g, m_gridMetric));
        m_grid[g]->setShowLegend(false);
      }
    }
    for (int run : runs) {
      if (grouped || run >= m_grid.size()) continue;
      const CompareLine line = lineFor(run, m_gridMetric);
      m_grid[run]->setTitle(QStringLiteral("%1 · %2").arg(line.name, title), line.color);
      m_grid[run]->yAxis->setLabel(comparedUnit(m_gridMetric));
      m_grid[run]->setLines({line});
    }
    fitCharts(m_grid, /*shareY=*/true);
  }
  // The other mode's charts were not updated: they are rebuilt when shown.
  if (m_hovered.any())
    for (CompareChart* c : m_mode == Mode::Overlay ? m_overlay : m_grid) c->setHighlight(m_hovered);
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
  // Grouped, the bands are resampled over what is visible now (at the next redraw, once a zoom
  // or pan comes to rest), not over the whole span.
  if (m_grouping.active()) setBandRange(range.lower, range.upper);
}

void ComparePage::setBandRange(double lo, double hi) {
  if (m_grouping.lo == lo && m_grouping.hi == hi) return;
  m_grouping.lo = lo;
  m_grouping.hi = hi;
  if (m_grouping.active()) markAllDirty();
}

}  // namespace traindeck
