#include "monitor_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>
#include <map>
#include <thread>

#include "chart_style.h"
#include "metric_chart.h"
#include "named_metric_chart.h"
#include "progress_text.h"
#include "runlog/huge_pages.h"
#include "runs/metrics_csv.h"
#include "smoothing.h"

namespace traindeck {

namespace {

// A redraw of at least this many train records builds its columns on two threads.
constexpr std::size_t kThreadedColumnsFrom = 100000;

QLabel* bigValue(const QString& name, const QString& tooltip, QWidget* parent) {
  auto* label = new QLabel("–", parent);
  label->setObjectName(name);
  QFont font = label->font();
  font.setPointSizeF(font.pointSizeF() * 1.8);
  font.setBold(true);
  label->setFont(font);
  label->setToolTip(tooltip);
  return label;
}

QWidget* figure(const QString& caption, QLabel* value, QWidget* parent) {
  auto* box = new QWidget(parent);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  auto* label = new QLabel(caption, box);
  label->setForegroundRole(QPalette::PlaceholderText);
  layout->addWidget(label);
  layout->addWidget(value);
  return box;
}

QString formatNumber(double value, int decimals) {
  return std::isfinite(value) ? QLocale().toString(value, 'f', decimals) : QStringLiteral("–");
}

// The fixed charts' names, in the order of MonitorPage::charts().
const char* const kFixedCharts[] = {"loss", "lr", "tokens_per_s", "grad_norm", "device_util", "device_memory"};

int fixedChartIndex(const QString& name) {
  for (int i = 0; i < int(std::size(kFixedCharts)); ++i)
    if (name == QLatin1String(kFixedCharts[i])) return i;
  return -1;
}

// A file name for a chart's metric: letters, digits, '-', '_' and '.' kept, the rest '-'.
QString chartFileName(const QString& name) {
  QString file = name;
  for (QChar& c : file)
    if (!c.isLetterOrNumber() && c != '-' && c != '_' && c != '.') c = '-';
  return file.startsWith('.') ? "metric" + file : file;
}

}  // namespace

MetricsView metricsViewOf(const MetricsStore& store, const QString& status, std::shared_ptr<const void> owner) {
  MetricsView view;
  view.train = &store.train();
  view.eval = &store.eval();
  view.system = &store.system();
  view.events = &store.events();
  view.store = &store;
  view.header = store.header();
  view.status = status;
  view.owner = std::move(owner);
  return view;
}

MonitorPage::MonitorPage(QWidget* parent) : QWidget(parent) {
  setObjectName("monitorPage");
  auto* layout = new QVBoxLayout(this);

  auto* figures = new QHBoxLayout;
  figures->setSpacing(32);
  m_stepValue = bigValue("stepValue", tr("Optimizer steps done, of the run's total."), this);
  m_lossValue = bigValue("lossValue", tr("The latest training loss (mean over every rank's batch)."), this);
  m_throughputValue = bigValue("tokensPerSecondValue", tr("Training tokens per second, all ranks together."), this);
  m_mfuValue =
      bigValue("mfuValue", tr("Model FLOPs utilization: the share of the devices' peak that training uses."), this);
  figures->addWidget(figure(tr("Step"), m_stepValue, this));
  figures->addWidget(figure(tr("Loss"), m_lossValue, this));
  figures->addWidget(figure(tr("Tokens/s"), m_throughputValue, this));
  figures->addWidget(figure(tr("MFU"), m_mfuValue, this));
  figures->addStretch(1);
  layout->addLayout(figures);

  auto* progressRow = new QHBoxLayout;
  m_progress = new QProgressBar(this);
  m_progress->setObjectName("progress");
  m_progress->setToolTip(tr("Steps done of the run's total."));
  m_eta = new QLabel(this);
  m_eta->setObjectName("eta");
  progressRow->addWidget(m_progress, 1);
  progressRow->addWidget(m_eta);
  layout->addLayout(progressRow);

  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("x-axis:"), this));
  m_xAxisChooser = new QComboBox(this);
  m_xAxisChooser->setObjectName("xAxis");
  m_xAxisChooser->addItems({tr("Step"), tr("Tokens"), tr("Elapsed time (s)")});
  m_xAxisChooser->setToolTip(tr("What the charts' horizontal axis counts."));
  controls->addWidget(m_xAxisChooser);
  controls->addSpacing(12);
  controls->addWidget(new QLabel(tr("Smoothing:"), this));
  m_smoothing = new QSlider(Qt::Horizontal, this);
  m_smoothing->setObjectName("smoothing");
  m_smoothing->setRange(0, 99);
  m_smoothing->setValue(static_cast<int>(m_smoothingWeight * 100));
  m_smoothing->setToolTip(tr("Weight of the debiased moving average drawn bold over the raw values (0: none)."));
  m_smoothing->setMaximumWidth(160);
  controls->addWidget(m_smoothing);
  m_logScale = new QCheckBox(tr("Log scale"), this);
  m_logScale->setObjectName("logScale");
  m_logScale->setToolTip(tr("Show the loss on a logarithmic axis."));
  controls->addWidget(m_logScale);
  auto* outliers = new QCheckBox(tr("Ignore outliers"), this);
  outliers->setObjectName("ignoreOutliers");
  outliers->setToolTip(tr("Scale each chart's y axis without the top and bottom 1% of its points."));
  controls->addWidget(outliers);
  connect(outliers, &QCheckBox::toggled, this, [this](bool on) {
    m_ignoreOutliers = on;
    for (MetricChart* chart : m_charts) chart->setIgnoreOutliers(on);
  });
  controls->addStretch(1);
  m_chartsButton = new QToolButton(this);
  m_chartsButton->setObjectName("chartsButton");
  m_chartsButton->setText(tr("Charts…"));
  m_chartsButton->setToolTip(tr("Choose the charts: the fixed ones, and any other metric the run has, by name."));
  connect(m_chartsButton, &QToolButton::clicked, this, &MonitorPage::showChartsMenu);
  controls->addWidget(m_chartsButton);
  auto* exportButton = new QToolButton(this);
  exportButton->setObjectName("export");
  exportButton->setText(tr("Export…"));
  exportButton->setToolTip(tr("Save every chart as PNG, SVG or PDF, or the metrics as CSV."));
  connect(exportButton, &QToolButton::clicked, this, &MonitorPage::exportAll);
  controls->addWidget(exportButton);
  layout->addLayout(controls);

  m_grid = new QGridLayout;
  m_loss = new MetricChart(tr("Loss"), tr("nats"), this);
  m_lr = new MetricChart(tr("Learning rate"), tr("lr"), this);
  m_throughput = new MetricChart(tr("Throughput"), tr("tokens/s"), this);
  m_gradNorm = new MetricChart(tr("Gradient norm"), tr("norm"), this);
  m_deviceUtil = new MetricChart(tr("Device utilization"), tr("%"), this);
  m_deviceMemory = new MetricChart(tr("Device memory"), tr("GiB"), this);
  m_charts = {m_loss, m_lr, m_throughput, m_gradNorm, m_deviceUtil, m_deviceMemory};
  layout->addLayout(m_grid, 1);
  m_chosen = defaultChartNames();
  updateShownCharts();

  m_redrawTimer.setSingleShot(true);
  m_redrawTimer.setInterval(40);
  connect(&m_redrawTimer, &QTimer::timeout, this, &MonitorPage::redraw);
  connect(m_xAxisChooser, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int index) { setXAxis(static_cast<XAxis>(index)); });
  connect(m_smoothing, &QSlider::valueChanged, this, [this](int v) { setSmoothing(v / 100.0); });
  connect(m_logScale, &QCheckBox::toggled, this, [this](bool on) {
    m_loss->setLogScale(on);
    m_redrawTimer.start();
  });
}

MonitorPage::~MonitorPage() = default;

QStringList MonitorPage::defaultChartNames() {
  QStringList names;
  for (const char* name : kFixedCharts) names << QString::fromLatin1(name);
  return names;
}

void MonitorPage::setChartNames(const QStringList& names) {
  QStringList chosen;
  for (const QString& name : names)
    if (!name.isEmpty() && !chosen.contains(name)) chosen << name;
  if (chosen == m_chosen) return;
  m_chosen = chosen;
  // Charts by name come and go with the choice; the fixed ones stay, hidden when not chosen.
  std::vector<std::unique_ptr<NamedMetricChart>> named;
  for (const QString& name : std::as_const(m_chosen)) {
    if (fixedChartIndex(name) >= 0) continue;
    auto kept = std::find_if(m_named.begin(), m_named.end(), [&](const auto& c) { return c && c->name() == name; });
    if (kept != m_named.end()) {
      named.push_back(std::move(*kept));
    } else {
      auto* chart = new MetricChart(metricTitle(name), name, this);
      chart->setObjectName("chart:" + name);
      chart->setIgnoreOutliers(m_ignoreOutliers);
      named.push_back(std::make_unique<NamedMetricChart>(name, chart));
    }
  }
  for (auto& gone : m_named)
    if (gone) {
      m_grid->removeWidget(gone->chart());
      gone->chart()->hide();
      gone->chart()->deleteLater();
    }
  m_named = std::move(named);
  m_charts = m_charts.mid(0, int(std::size(kFixedCharts)));
  for (const auto& c : m_named) m_charts << c->chart();
  updateShownCharts();
  m_redrawTimer.start(0);
  emit chartNamesChanged(m_chosen);
}

QStringList MonitorPage::offeredChartNames() const {
  QStringList offered = defaultChartNames();
  for (const QString& name : m_present)
    if (name != QLatin1String("val_loss") && !offered.contains(name)) offered << name;
  for (const QString& name : m_chosen)
    if (!offered.contains(name)) offered << name;
  return offered;
}

MetricChart* MonitorPage::chart(const QString& name) const {
  if (const int fixed = fixedChartIndex(name); fixed >= 0) return m_charts[fixed];
  for (const auto& c : m_named)
    if (c->name() == name) return c->chart();
  return nullptr;
}

bool MonitorPage::isChartShown(const QString& name) const {
  MetricChart* c = chart(name);
  return c && m_shown.contains(c);
}

bool MonitorPage::shouldShow(const QString& name) const {
  const int fixed = fixedChartIndex(name);
  // A run of ours that has not logged a value yet shows its fixed charts empty ("No data yet").
  if (fixed >= 0 && (!m_view.imported || !m_view.store)) return true;
  if (!m_view.store) return false;
  if (name == QLatin1String("loss")) return m_present.contains(name) || m_present.contains("val_loss");
  if (name == QLatin1String("device_util") || name == QLatin1String("device_memory"))
    return !m_view.store->system().empty();
  return m_present.contains(name);
}

void MonitorPage::updateShownCharts() {
  // Taken again only when the store changed: a column's scan stops at its first value.
  const std::size_t points = m_view.store ? storePoints(*m_view.store) : 0;
  if (m_view.store != m_presentStore || points != m_presentPoints) {
    m_presentStore = m_view.store;
    m_presentPoints = points;
    m_present = m_view.store ? metricNamesOf(*m_view.store, m_view.store->scalars()) : QStringList();
  }
  QList<MetricChart*> shown;
  for (const QString& name : std::as_const(m_chosen))
    if (MetricChart* c = chart(name); c && shouldShow(name)) shown << c;
  if (shown == m_shown) return;
  m_shown = shown;
  for (MetricChart* c : std::as_const(m_charts)) {
    m_grid->removeWidget(c);
    c->setVisible(false);
  }
  for (int i = 0; i < m_shown.size(); ++i) {
    m_grid->addWidget(m_shown[i], i / 2, i % 2);
    m_shown[i]->setVisible(true);
  }
}

void MonitorPage::showChartsMenu() {
  QMenu menu(this);
  menu.setObjectName("chartsMenu");
  for (const QString& name : offeredChartNames()) {
    const int fixed = fixedChartIndex(name);
    QString text = fixed >= 0 ? m_charts[fixed]->title() : metricTitle(name);
    if (text != name) text += QStringLiteral("  (%1)").arg(name);
    if (!m_present.contains(name) && fixed < 0) text += tr(" — not in this run");
    QAction* action = menu.addAction(text);
    action->setObjectName("chart:" + name);
    action->setCheckable(true);
    action->setChecked(m_chosen.contains(name));
    connect(action, &QAction::toggled, this, [this, name](bool on) {
      QStringList names = m_chosen;
      if (on)
        names << name;
      else
        names.removeAll(name);
      setChartNames(names);
    });
  }
  menu.addSeparator();
  QAction* reset = menu.addAction(tr("The usual charts"));
  reset->setObjectName("chartsDefault");
  connect(reset, &QAction::triggered, this, [this] { setChartNames(defaultChartNames()); });
  menu.exec(m_chartsButton->mapToGlobal(QPoint(0, m_chartsButton->height())));
}

void MonitorPage::showMetrics(const MetricsView& view) {
  // Another run (or the first): drawn at the next turn of the event loop, not after the wait
  // that paces a live run's redraws (redraw() sets that wait again).
  // So does a run whose points drawn are no longer its first ones (a long history's preview,
  // replaced by the whole of it).
  const bool anotherRun = view.train != m_drawn.source || (view.train && !drawnLeadOf(*view.train));
  // Each run gets its own ranges: the charts follow the new one's data, whatever the last one's
  // zoom (an imported run's store is told apart by the store, its train columns may be none).
  if (view.train != m_view.train || view.store != m_view.store) m_followAnew = true;
  m_view = view;
  if (anotherRun)
    m_redrawTimer.start(0);
  else if (!m_redrawTimer.isActive())
    m_redrawTimer.start();
}

void MonitorPage::clear() {
  m_view = MetricsView();
  redraw();
}

void MonitorPage::setXAxis(XAxis axis) {
  m_xAxis = axis;
  if (m_xAxisChooser->currentIndex() != static_cast<int>(axis)) m_xAxisChooser->setCurrentIndex(static_cast<int>(axis));
  for (MetricChart* chart : m_charts) chart->fitIfFollowing();
  m_redrawTimer.start();
}

void MonitorPage::setSmoothing(double weight) {
  m_smoothingWeight = std::clamp(weight, 0.0, 0.99);
  if (m_smoothing->value() != static_cast<int>(m_smoothingWeight * 100))
    m_smoothing->setValue(static_cast<int>(m_smoothingWeight * 100));
  m_redrawTimer.start();
}

bool MonitorPage::drawnLeadOf(const TrainColumns& train) const {
  const DrawnTrain& d = m_drawn;
  return d.count <= train.size() &&
         (d.count == 0 || (train.step[d.count - 1] == d.lastStep && train.time[d.count - 1] == d.lastTime));
}

void MonitorPage::drawTrain(const TrainColumns& train, double t0, const std::vector<Pause>& pauses) {
  DrawnTrain& d = m_drawn;
  const std::size_t n = train.size();
  const bool extends = d.source == m_view.train && d.count > 0 && drawnLeadOf(train) && d.axis == m_xAxis &&
                       d.smoothing == m_smoothingWeight && d.t0 == t0;
  if (extends && d.count == n) return;
  if (!extends) {
    const double w = m_smoothingWeight;
    d = DrawnTrain{m_view.train, 0, 0, 0, t0, m_xAxis, w, DebiasedEma(w), DebiasedEma(w), DebiasedEma(w)};
  }
  const std::size_t size = n - d.count;
  std::vector<double> x, loss, lossSmooth, lr, throughput, throughputSmooth, gradNorm, gradNormSmooth;
  // Room for half as many again (address space only, until used): the charts keep these
  // vectors, and a live run's appends then rarely copy a million points.
  const std::size_t room = extends ? size : size + size / 2;
  for (std::vector<double>* v :
       {&x, &loss, &lossSmooth, &lr, &throughput, &throughputSmooth, &gradNorm, &gradNormSmooth})
    reserveHuge(*v, room);
  const bool breaks = m_xAxis == XAxis::Elapsed && !pauses.empty();
  if (!breaks) {
    // Column by column: a million points are a few tight loops, not one with eight appends.
    x.resize(size);
    for (std::size_t i = 0; i < size; ++i) {
      const std::size_t r = d.count + i;
      x[i] = axisValue(m_xAxis, train.step[r], train.tokens[r], train.time[r], t0);
    }
    const auto column = [&](const std::vector<float>& values, std::vector<double>& raw, std::vector<double>* smooth,
                            DebiasedEma* ema) {
      raw.assign(values.begin() + static_cast<std::ptrdiff_t>(d.count), values.end());
      if (!smooth) return;
      smooth->resize(size);
      // On a local copy: the three averages sit side by side in m_drawn, and two threads writing
      // them through the pointer shared a cache line at every point (233 -> 145 ms a million).
      DebiasedEma local = *ema;
      for (std::size_t i = 0; i < size; ++i) (*smooth)[i] = local.push(raw[i]);
      *ema = local;
    };
    // A long history's columns on two threads: each writes its own vectors (fresh memory, whose
    // page faults are most of the cost), nothing else touches them until the join.
    const auto firstHalf = [&] {
      column(train.loss, loss, &lossSmooth, &d.loss);
      column(train.lr, lr, nullptr, nullptr);
    };
    std::thread helper;
    if (size >= kThreadedColumnsFrom)
      helper = std::thread(firstHalf);
    else
      firstHalf();
    column(train.tokensPerSecond, throughput, &throughputSmooth, &d.throughput);
    column(train.gradNorm, gradNorm, &gradNormSmooth, &d.gradNorm);
    if (helper.joinable()) helper.join();
  }
  for (std::size_t i = breaks ? d.count : n; i < n; ++i) {
    if (i > 0 && pauseBetween(pauses, train.time[i - 1], train.time[i])) {
      // The run stood still here (stopped, then resumed): no line across that time.
      x.push_back((train.time[i - 1] + train.time[i]) / 2 - t0);
      for (std::vector<double>* v :
           {&loss, &lossSmooth, &lr, &throughput, &throughputSmooth, &gradNorm, &gradNormSmooth})
        v->push_back(std::nan(""));
    }
    x.push_back(axisValue(m_xAxis, train.step[i], train.tokens[i], train.time[i], t0));
    loss.push_back(train.loss[i]);
    lossSmooth.push_back(d.loss.push(train.loss[i]));
    lr.push_back(train.lr[i]);
    throughput.push_back(train.tokensPerSecond[i]);
    throughputSmooth.push_back(d.throughput.push(train.tokensPerSecond[i]));
    gradNorm.push_back(train.gradNorm[i]);
    gradNormSmooth.push_back(d.gradNorm.push(train.gradNorm[i]));
  }
  // A whole redraw hands the columns over, the loss chart taking x and the others drawing over
  // it; a growing run's new points are appended, the loss chart's first (it holds the x).
  if (extends) {
    m_loss->appendSeries(x, loss, lossSmooth);
    m_lr->appendSeries(x, lr, {});
    m_throughput->appendSeries(x, throughput, throughputSmooth);
    m_gradNorm->appendSeries(x, gradNorm, gradNormSmooth);
  } else {
    m_loss->takeSeries(std::move(x), std::move(loss), std::move(lossSmooth));
    m_lr->takeSeriesOverXOf(*m_loss, std::move(lr), {});
    m_throughput->takeSeriesOverXOf(*m_loss, std::move(throughput), std::move(throughputSmooth));
    m_gradNorm->takeSeriesOverXOf(*m_loss, std::move(gradNorm), std::move(gradNormSmooth));
  }
  d.count = n;
  if (n > 0) {
    d.lastStep = train.step[n - 1];
    d.lastTime = train.time[n - 1];
  }
}

void MonitorPage::redraw() {
  QElapsedTimer clock;
  clock.start();
  static const TrainColumns kNoTrain;
  static const EvalColumns kNoEval;
  static const std::map<int, std::vector<SystemPoint>> kNoSystem;
  static const std::vector<EventPoint> kNoEvents;
  // A run that does not count tokens (another tool's) has no place on a tokens axis.
  const bool noTokens = m_xAxis == XAxis::Tokens && m_view.imported;
  const TrainColumns& train = m_view.train && !noTokens ? *m_view.train : kNoTrain;
  const EvalColumns& eval = m_view.eval && !noTokens ? *m_view.eval : kNoEval;
  const std::map<int, std::vector<SystemPoint>>& system = m_view.system ? *m_view.system : kNoSystem;
  const std::vector<EventPoint>& events = m_view.events ? *m_view.events : kNoEvents;

  const double t0 = train.size() ? train.time.front() : (eval.size() ? eval.time.front() : 0);
  const auto xOf = [&](std::int64_t step, std::int64_t tokens, double time) {
    return axisValue(m_xAxis, step, tokens, time, t0);
  };
  const QString xLabel = m_xAxisChooser->currentText();
  const std::vector<Pause> pauses = runPauses(train, eval);
  // A point with no value where the run stood still: time-axis lines do not cross a pause.
  const auto breakAt = [&](QVector<double>& xs, QVector<double>& ys, double before, double after) {
    if (!pauseBetween(pauses, before, after)) return;
    xs << (before + after) / 2 - t0;
    ys << std::nan("");
  };
  drawTrain(train, t0, pauses);

  QVector<double> evalX, evalY;
  for (std::size_t i = 0; i < eval.size(); ++i) {
    if (m_xAxis == XAxis::Elapsed && i > 0) breakAt(evalX, evalY, eval.time[i - 1], eval.time[i]);
    evalX << xOf(eval.step[i], eval.tokens[i], eval.time[i]);
    evalY << eval.valLoss[i];
  }
  m_loss->setExtraLines(eval.size() ? QVector<QString>{tr("val loss")} : QVector<QString>{}, {evalX}, {evalY});

  // Device charts: one line per rank, against elapsed time (system records carry no step).
  std::map<int, std::pair<QVector<double>, QVector<double>>> util, memory;
  for (const auto& [rank, points] : system)
    for (std::size_t i = 0; i < points.size(); ++i) {
      const SystemPoint& p = points[i];
      if (i > 0) {
        breakAt(util[rank].first, util[rank].second, points[i - 1].time, p.time);
        breakAt(memory[rank].first, memory[rank].second, points[i - 1].time, p.time);
      }
      util[rank].first << p.time - t0;
      util[rank].second << 100.0 * p.util;
      memory[rank].first << p.time - t0;
      memory[rank].second << static_cast<double>(p.memUsed) / (1 << 30);
    }
  QVector<QString> names;
  QVector<QVector<double>> ux, uy, mx, my;
  for (const auto& [rank, series] : util) {
    names << tr("rank %1").arg(rank);
    ux << series.first;
    uy << series.second;
    mx << memory[rank].first;
    my << memory[rank].second;
  }
  m_deviceUtil->setSeries({}, {}, {});
  m_deviceUtil->setExtraLines(names, ux, uy);
  m_deviceMemory->setSeries({}, {}, {});
  m_deviceMemory->setExtraLines(names, mx, my);

  QVector<ChartMarker> markers;
  for (const EventPoint& e : events) {
    if (e.step < 0 && m_xAxis != XAxis::Elapsed) continue;
    const double ex = xOf(e.step, e.step * m_view.header.tokensPerStep, e.time);
    markers.push_back({ex, QString::fromStdString(e.level), QString::fromStdString(e.message)});
  }
  m_loss->setMarkers(markers);

  updateShownCharts();
  for (const auto& named : m_named)
    if (m_shown.contains(named->chart())) named->draw(m_view.store, m_xAxis, m_smoothingWeight);
  if (m_followAnew)
    for (MetricChart* chart : m_charts) chart->follow();
  m_followAnew = false;
  for (MetricChart* chart : m_shown) {
    chart->setXAxisLabel(chart == m_deviceUtil || chart == m_deviceMemory ? tr("Elapsed time (s)") : xLabel);
    chart->fitIfFollowing();
    chart->replot(QCustomPlot::rpQueuedReplot);
  }

  // Figures and progress.
  const std::int64_t total = m_view.header.totalSteps;
  const std::int64_t step = train.size() ? train.step.back() : 0;
  m_stepValue->setText(total > 0 ? QStringLiteral("%1 / %2").arg(step).arg(total) : QString::number(step));
  m_lossValue->setText(train.size() ? formatNumber(train.loss.back(), 4) : QStringLiteral("–"));
  m_throughputValue->setText(train.size() ? formatNumber(train.tokensPerSecond.back(), 0) : QStringLiteral("–"));
  const double mfu = train.size() ? train.mfu.back() : std::nan("");
  m_mfuValue->setText(std::isfinite(mfu) ? QStringLiteral("%1%").arg(100 * mfu, 0, 'f', 1) : QStringLiteral("–"));
  m_progress->setRange(0, static_cast<int>(std::max<std::int64_t>(1, total)));
  m_progress->setValue(total > 0 ? static_cast<int>(std::min(step, total)) : 0);
  m_progress->setFormat(total > 0 ? QStringLiteral("%p%") : tr("total not known"));
  m_eta->setText(progressText(train, total, m_view.status, m_view.linkLost));

  m_redrawTimer.setInterval(nextRedrawIntervalMs(clock, m_shown));
}

bool MonitorPage::exportCharts(const QString& folder, const QString& extension) {
  bool ok = true;
  const QStringList fixed = {"loss", "learning-rate", "throughput", "grad-norm", "device-util", "device-memory"};
  for (int i = 0; i < m_charts.size(); ++i) {
    if (!m_shown.contains(m_charts[i])) continue;
    const QString name = i < fixed.size() ? fixed[i] : chartFileName(m_named[std::size_t(i - fixed.size())]->name());
    ok = m_charts[i]->exportTo(QDir(folder).filePath(name + "." + extension)) && ok;
  }
  return ok;
}

bool MonitorPage::exportCsv(const QString& path) const {
  QFile file(path);
  if (!m_view.train || !file.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  static const EvalColumns kNoEval;
  static const std::vector<ScalarSeries> kNoScalars;
  const QByteArray text = metricsCsv(*m_view.train, m_view.eval ? *m_view.eval : kNoEval,
                                     m_view.store ? m_view.store->scalars() : kNoScalars)
                              .toUtf8();
  return file.write(text) == text.size();
}

void MonitorPage::exportAll() {
  QMenu menu(this);
  QAction* png = menu.addAction(tr("Charts as PNG…"));
  QAction* svg = menu.addAction(tr("Charts as SVG…"));
  menu.addAction(tr("Charts as PDF…"));
  QAction* csv = menu.addAction(tr("Metrics as CSV…"));
  QAction* chosen = menu.exec(QCursor::pos());
  if (!chosen) return;
  if (chosen == csv) {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save metrics"), "metrics.csv", tr("CSV (*.csv)"));
    if (!path.isEmpty()) exportCsv(path);
    return;
  }
  const QString folder = QFileDialog::getExistingDirectory(this, tr("Save the charts into"));
  if (!folder.isEmpty()) exportCharts(folder, chosen == png ? "png" : chosen == svg ? "svg" : "pdf");
}

}  // namespace traindeck
