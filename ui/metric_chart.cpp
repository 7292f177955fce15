#include "metric_chart.h"

#include <QSvgGenerator>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "chart_style.h"
#include "runlog/huge_pages.h"

namespace traindeck {

namespace {

const QVector<QColor> kLineColors = {QColor(31, 119, 180),  QColor(255, 127, 14),  QColor(44, 160, 44),
                                     QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),
                                     QColor(227, 119, 194), QColor(127, 127, 127)};

// Lines up to this long are handed to QCustomPlot whole: its own sampling draws them in well
// under a millisecond, and what it holds is every point.
constexpr std::size_t kWholeLineUpTo = 16384;
// Lines at least this long have their smoothed twin built on another thread.
constexpr std::size_t kThreadedBuildFrom = 100000;

// With room for half as many again: a growing line's appends then rarely copy it.
std::vector<double> withRoom(std::size_t size) {
  std::vector<double> v;
  reserveHuge(v, size + size / 2);
  return v;
}

std::vector<double> stdVectorOf(const QVector<double>& values) {
  std::vector<double> v = withRoom(static_cast<std::size_t>(values.size()));
  v.assign(values.begin(), values.end());
  return v;
}

QColor markerColor(const QString& level) {
  if (level == "error") return QColor(214, 39, 40);
  if (level == "warn") return QColor(230, 160, 20);
  return QColor(120, 120, 120);
}

}  // namespace

namespace {

template <class Column>
void extendBounds(SeriesBounds& b, const Column& xs, const Column& ys) {
  const double* x = xs.data();
  const double* y = ys.data();
  // Plain min and max in one pass (QCPRange::expand is not inlined: a million calls show).
  double keyLo = b.keys.lower, keyHi = b.keys.upper, lo = b.values.lower, hi = b.values.upper;
  bool found = b.any;
  const auto n = std::min<std::size_t>(static_cast<std::size_t>(xs.size()), static_cast<std::size_t>(ys.size()));
  for (std::size_t i = 0; i < n; ++i) {
    const double v = y[i];
    if (!std::isfinite(v) || !std::isfinite(x[i])) continue;  // a record without its time, say
    if (!found) {
      keyLo = keyHi = x[i];
      lo = hi = v;
      found = true;
      continue;
    }
    keyLo = std::min(keyLo, x[i]);
    keyHi = std::max(keyHi, x[i]);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!found) return;
  b.keys = QCPRange(keyLo, keyHi);
  b.values = QCPRange(lo, hi);
  b.any = true;
}

}  // namespace

void SeriesBounds::extend(const QVector<double>& x, const QVector<double>& y) {
  extendBounds(*this, x, y);
}

void SeriesBounds::extend(const std::vector<double>& x, const std::vector<double>& y) {
  extendBounds(*this, x, y);
}

void SeriesBounds::extend(std::span<const double> x, std::span<const double> y) {
  extendBounds(*this, x, y);
}

void SeriesBounds::extend(const SeriesBounds& other) {
  if (!other.any) return;
  if (!any) {
    *this = other;
    return;
  }
  keys.expand(other.keys);
  values.expand(other.values);
}

QString MetricChart::title() const {
  return m_heading->text();
}

MetricChart::MetricChart(const QString& title, const QString& valueLabel, QWidget* parent) : QCustomPlot(parent) {
  setObjectName("chart:" + title);
  yAxis->setLabel(valueLabel);
  plotLayout()->insertRow(0);
  m_heading = new QCPTextElement(this, title, QFont(font().family(), font().pointSize() + 1, QFont::Bold));
  plotLayout()->addElement(0, 0, m_heading);
  applyPalette();

  QColor faint = kLineColors[0];
  faint.setAlpha(70);
  m_raw = addGraph();
  m_raw->setPen(QPen(faint, 1));
  m_raw->setName(tr("raw"));
  m_smooth = addGraph();
  m_smooth->setPen(QPen(kLineColors[0], 2));
  m_smooth->setName(tr("smoothed"));
  m_rawLine.graph = m_raw;
  m_smoothLine.graph = m_smooth;
  m_markerGraph = addGraph();
  m_markerGraph->setLineStyle(QCPGraph::lsNone);
  m_markerGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangleInverted, QColor(214, 39, 40), 9));
  m_markerGraph->removeFromLegend();
  m_markerGraph->setName(tr("events"));
  // Until a point arrives: no made-up 0-5 axes, a sentence instead.
  m_emptyText = new QCPItemText(this);
  m_emptyText->position->setType(QCPItemPosition::ptAxisRectRatio);
  m_emptyText->position->setCoords(0.5, 0.5);
  m_emptyText->setText(tr("No data yet"));
  m_emptyText->setColor(palette().color(QPalette::PlaceholderText));
  showEmpty(true);

  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  setPlottingHints(QCP::phFastPolylines | QCP::phCacheLabels);
  // The mouse zooms and pans x only; y follows what is visible.
  axisRect()->setRangeZoom(Qt::Horizontal);
  axisRect()->setRangeDrag(Qt::Horizontal);
  connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this] {
    // Only a drag on this chart is the user's: a button held elsewhere (a click in the run
    // list that shows another run) while the axes fit the new data is not.
    if (m_dragging) m_following = false;
    if (!m_following) fitYToVisibleX();
  });
  connect(this, &QCustomPlot::mouseWheel, this, [this] { m_following = false; });
  connect(this, &QCustomPlot::beforeReplot, this, &MetricChart::pickAllPoints);
  setMinimumHeight(160);
}

void MetricChart::applyPalette() {
  if (m_emptyText != nullptr) m_emptyText->setColor(palette().color(QPalette::PlaceholderText));
  applyChartPalette(this, m_heading);
}

void MetricChart::changeEvent(QEvent* event) {
  QCustomPlot::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    applyPalette();
    replot(QCustomPlot::rpQueuedReplot);
  }
}

void MetricChart::setSeries(const QVector<double>& x, const QVector<double>& raw, const QVector<double>& smoothed) {
  takeSeries(stdVectorOf(x), stdVectorOf(raw), stdVectorOf(smoothed));
}

void MetricChart::takeSeries(std::vector<double> x, std::vector<double> raw, std::vector<double> smoothed) {
  // The buffer stays where it is when x moves into the raw line.
  const std::span<const double> xs(x.data(), x.size());
  buildSeries(xs, &m_rawLine.points, std::move(raw), std::move(smoothed),
              [&](std::vector<double>&& y) { m_rawLine.points.assign(std::move(x), std::move(y)); });
}

void MetricChart::takeSeriesOverXOf(const MetricChart& xChart, std::vector<double> raw, std::vector<double> smoothed) {
  const SeriesPyramid* owner = &xChart.m_rawLine.points;
  buildSeries(std::span<const double>(owner->xs().data(), owner->size()), owner, std::move(raw), std::move(smoothed),
              [&](std::vector<double>&& y) { m_rawLine.points.assignOverXOf(owner, std::move(y)); });
}

void MetricChart::buildSeries(std::span<const double> xs, const SeriesPyramid* xOwner, std::vector<double> raw,
                              std::vector<double> smoothed, const std::function<void(std::vector<double>&&)>& takeRaw) {
  const bool hasRaw = !raw.empty(), hasSmooth = !smoothed.empty();
  const long long points = static_cast<long long>(xs.size());
  // A long run's smoothed line is built on a second thread meanwhile, over the same x (both only
  // read them until the join).
  SeriesBounds smoothBounds;
  auto buildSmooth = [&] {
    smoothBounds.extend(xs, smoothed);
    if (smoothed.empty())
      m_smoothLine.points.clear();
    else
      m_smoothLine.points.assignOverXOf(xOwner, std::move(smoothed));
  };
  std::thread smoothBuilder;
  if (xs.size() >= kThreadedBuildFrom)
    smoothBuilder = std::thread(std::ref(buildSmooth));
  else
    buildSmooth();
  m_mainBounds = SeriesBounds();
  m_mainBounds.extend(xs, raw);
  takeRaw(std::move(raw));
  if (smoothBuilder.joinable()) smoothBuilder.join();
  m_mainBounds.extend(smoothBounds);
  pickPoints(m_rawLine, true);
  pickPoints(m_smoothLine, true);
  m_smooth->setVisible(hasSmooth);
  // Only lines that exist are named in the legend.
  if (!hasRaw || !hasSmooth) {
    m_raw->removeFromLegend();
    m_smooth->removeFromLegend();
  } else {
    m_raw->addToLegend();
    m_smooth->addToLegend();
  }
  QColor faint = kLineColors[0];
  faint.setAlpha(hasSmooth ? 70 : 255);
  m_raw->setPen(QPen(faint, 1));
  m_smooth->setPen(QPen(kLineColors[0], lineWidthFor(points)));
}

void MetricChart::appendSeries(const std::vector<double>& x, const std::vector<double>& raw,
                               const std::vector<double>& smoothed) {
  m_rawLine.points.append(x, raw);
  if (!smoothed.empty()) m_smoothLine.points.append(x, smoothed);
  pickPoints(m_rawLine, true);
  if (!smoothed.empty()) pickPoints(m_smoothLine, true);
  m_mainBounds.extend(x, raw);
  m_mainBounds.extend(x, smoothed);
  m_smooth->setPen(QPen(kLineColors[0], lineWidthFor(static_cast<long long>(m_rawLine.points.size()))));
}

void MetricChart::pickPoints(Line& line, bool changed) {
  const SeriesPyramid& p = line.points;
  const std::vector<double>& x = p.xs();
  const std::vector<double>& y = p.ys();
  QVector<QCPGraphData> drawn;
  if (p.size() <= kWholeLineUpTo) {
    if (!changed && line.whole) return;
    drawn.resize(static_cast<qsizetype>(p.size()));
    for (std::size_t i = 0; i < p.size(); ++i) drawn[static_cast<qsizetype>(i)] = QCPGraphData(x[i], y[i]);
    line.graph->data()->set(drawn, /*alreadySorted=*/true);
    line.whole = true;
    line.drawnSize = p.size();
    return;
  }
  if (changed) {  // picked before the next replot, when the axes have been fitted to the points
    line.whole = false;
    line.drawnWidth = -1;
    return;
  }
  const QCPRange keys = xAxis->range();
  const int columns = std::max(width(), 100);
  if (!line.whole && line.drawnSize == p.size() && line.drawnWidth == columns && line.drawnKeys.lower == keys.lower &&
      line.drawnKeys.upper == keys.upper)
    return;
  // One point past each edge, so that the line runs on to the border.
  std::size_t first = p.lowerBound(keys.lower);
  if (first > 0) --first;
  const auto past = std::upper_bound(x.begin(), x.end(), keys.upper);
  const std::size_t last = std::min(p.size(), static_cast<std::size_t>(past - x.begin()) + 1);
  drawn.reserve(static_cast<qsizetype>(std::min<std::size_t>(last - first, 10 * static_cast<std::size_t>(columns))));
  p.forEachDrawn(first, last, static_cast<std::size_t>(columns),
                 [&](std::size_t i) { drawn.push_back(QCPGraphData(x[i], y[i])); });
  line.graph->data()->set(drawn, /*alreadySorted=*/true);
  line.whole = false;
  line.drawnSize = p.size();
  line.drawnWidth = columns;
  line.drawnKeys = keys;
}

void MetricChart::pickAllPoints() {
  pickPoints(m_rawLine, false);
  pickPoints(m_smoothLine, false);
  for (Line& line : m_extraLines) pickPoints(line, false);
}

std::vector<const MetricChart::Line*> MetricChart::visibleLines() const {
  std::vector<const Line*> lines;
  for (const Line* line : {&m_rawLine, &m_smoothLine})
    if (line->graph->visible()) lines.push_back(line);
  for (const Line& line : m_extraLines)
    if (line.graph->visible()) lines.push_back(&line);
  return lines;
}

void MetricChart::setExtraLines(const QVector<QString>& names, const QVector<QVector<double>>& xs,
                                const QVector<QVector<double>>& ys) {
  while (m_extra.size() > names.size()) removeGraph(m_extra.takeLast());
  while (m_extra.size() < names.size()) {
    QCPGraph* g = addGraph();
    g->setPen(QPen(kLineColors[(m_extra.size() + 1) % kLineColors.size()], 2));
    m_extra.push_back(g);
  }
  m_extraLines.resize(static_cast<std::size_t>(names.size()));
  m_extraBounds = QVector<SeriesBounds>(names.size());
  for (int i = 0; i < names.size(); ++i) {
    m_extra[i]->setName(names[i]);
    Line& line = m_extraLines[static_cast<std::size_t>(i)];
    line.graph = m_extra[i];
    line.points.assign(stdVectorOf(xs[i]), stdVectorOf(ys[i]));
    pickPoints(line, true);
    m_extraBounds[i].extend(xs[i], ys[i]);
    m_extra[i]->setPen(QPen(kLineColors[(i + 1) % kLineColors.size()], lineWidthFor(ys[i].size())));
    // Dots mark sparse series (eval points); on long ones they would only cost drawing time.
    m_extra[i]->setScatterStyle(
        QCPScatterStyle(ys[i].size() <= 500 ? QCPScatterStyle::ssCircle : QCPScatterStyle::ssNone, 4));
  }
  legend->setVisible(!names.isEmpty());
}

void MetricChart::setMarkers(const QVector<ChartMarker>& markers) {
  m_markers = markers;
  QVector<double> xs, ys;
  const double top = yAxis->range().upper;
  for (const ChartMarker& m : markers) {
    xs << m.x;
    ys << top;
  }
  m_markerGraph->setData(xs, ys);
  const bool anyError =
      std::any_of(markers.begin(), markers.end(), [](const ChartMarker& m) { return m.level != "info"; });
  m_markerGraph->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssTriangleInverted, markerColor(anyError ? "warn" : "info"), 9));
}

void MetricChart::showEmpty(bool empty) {
  m_emptyText->setVisible(empty);
  for (QCPAxis* axis : {xAxis, yAxis}) axis->setTickLabels(!empty);
}

void MetricChart::setXAxisLabel(const QString& label) {
  xAxis->setLabel(label);
}

void MetricChart::setLogScale(bool on) {
  setLogAxis(yAxis, on);
}

SeriesBounds MetricChart::visibleBounds() const {
  SeriesBounds bounds;
  if (m_raw->visible() || m_smooth->visible()) bounds.extend(m_mainBounds);
  for (int i = 0; i < m_extra.size() && i < m_extraBounds.size(); ++i)
    if (m_extra[i]->visible()) bounds.extend(m_extraBounds[i]);
  return bounds;
}

std::optional<QCPRange> MetricChart::dataRange(const std::optional<QCPRange>& keys) const {
  if (!keys && !m_ignoreOutliers) {
    const SeriesBounds bounds = visibleBounds();
    return bounds.any ? std::optional<QCPRange>(bounds.values) : std::nullopt;
  }
  std::vector<double> values;  // only when outliers are left out
  std::optional<QCPRange> out;
  for (const Line* line : visibleLines()) {
    const SeriesPyramid& p = line->points;
    const std::size_t first = keys ? p.lowerBound(keys->lower) : 0;
    const std::size_t last =
        keys ? static_cast<std::size_t>(std::upper_bound(p.xs().begin(), p.xs().end(), keys->upper) - p.xs().begin())
             : p.size();
    if (m_ignoreOutliers) {
      for (std::size_t i = first; i < last; ++i)
        if (std::isfinite(p.ys()[i])) values.push_back(p.ys()[i]);
      continue;
    }
    if (const auto r = p.valueRange(first, last))
      out = out ? QCPRange(std::min(out->lower, r->first), std::max(out->upper, r->second))
                : QCPRange(r->first, r->second);
  }
  if (m_ignoreOutliers && !values.empty()) {
    const std::size_t cut = values.size() / 100;  // 1% each side
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(cut), values.end());
    const double low = values[cut];
    std::nth_element(values.begin(), values.end() - 1 - static_cast<std::ptrdiff_t>(cut), values.end());
    out = QCPRange(low, values[values.size() - 1 - cut]);
  }
  return out;
}

void MetricChart::fitY(const QCPRange& data) {
  // A constant series (a fixed learning rate) gets a readable band of 5% around its value
  // instead of an axis magnifying rounding noise; a small but real spread (a zoomed tail) is shown.
  yAxis->setRange(data);
  const double scale = std::max(std::abs(data.center()), 1e-12);
  if (data.size() <= scale * 1e-9) yAxis->setRange(data.center() - 0.05 * scale, data.center() + 0.05 * scale);
  yAxis->scaleRange(1.05, yAxis->range().center());
}

void MetricChart::fitIfFollowing() {
  if (!m_following) return;
  // From the bounds kept as points arrive, not a scan of every point. The y range is the data's
  // alone: the event markers sit at the previous top edge, and fitting to them too made the
  // axis grow by the 5% margin on every refresh.
  const SeriesBounds bounds = visibleBounds();
  if (bounds.any) xAxis->setRange(bounds.keys);
  const std::optional<QCPRange> data = dataRange(std::nullopt);
  showEmpty(!data);
  if (data) fitY(*data);
  if (xAxis->range().size() < 1) xAxis->setRange(xAxis->range().center() - 1, xAxis->range().center() + 1);
  if (!m_markers.isEmpty()) setMarkers(m_markers);  // keep markers at the top edge
}

void MetricChart::follow() {
  m_following = true;
  if (visibleBounds().any) return fitIfFollowing();
  xAxis->setRange(0, 1);
  yAxis->setRange(0, 1);
  showEmpty(true);
}

void MetricChart::fitYToVisibleX() {
  if (const std::optional<QCPRange> data = dataRange(xAxis->range())) fitY(*data);
  if (!m_markers.isEmpty()) setMarkers(m_markers);
}

void MetricChart::setIgnoreOutliers(bool on) {
  if (m_ignoreOutliers == on) return;
  m_ignoreOutliers = on;
  if (m_following)
    fitIfFollowing();
  else
    fitYToVisibleX();
  replot(QCustomPlot::rpQueuedReplot);
}

void MetricChart::zoomX(const QCPRange& range) {
  m_following = false;
  xAxis->setRange(range);  // rangeChanged fits y to it
}

QString MetricChart::valueTextAt(double pixelX) const {
  const SeriesPyramid& raw = m_rawLine.points;
  if (raw.size() == 0) return {};
  const double key = xAxis->pixelToCoord(pixelX);
  // The nearer of the first point at or after key and the one before it.
  std::size_t best = raw.lowerBound(key);
  const std::vector<double>& x = raw.xs();
  if (best == raw.size() || (best > 0 && std::abs(x[best - 1] - key) < std::abs(x[best] - key))) --best;
  if (std::abs(xAxis->coordToPixel(x[best]) - pixelX) > 12) return {};
  QString text = QStringLiteral("%1 %2: %3")
                     .arg(xAxis->label().isEmpty() ? tr("x") : xAxis->label())
                     .arg(x[best], 0, 'g', 10)
                     .arg(raw.ys()[best], 0, 'g', 6);
  const SeriesPyramid& smooth = m_smoothLine.points;
  if (const std::size_t s = smooth.lowerBound(x[best]); s < smooth.size() && smooth.xs()[s] == x[best])  // same x
    text += tr(", smoothed %1").arg(smooth.ys()[s], 0, 'g', 6);
  return text;
}

bool MetricChart::exportTo(const QString& path) {
  pickAllPoints();  // exports draw without a replot
  const QString lower = path.toLower();
  if (lower.endsWith(".png")) return savePng(path, 0, 0, 2.0);
  if (lower.endsWith(".pdf")) return savePdf(path);
  if (lower.endsWith(".svg")) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(size());
    svg.setViewBox(rect());
    QCPPainter painter;
    if (!painter.begin(&svg)) return false;
    toPainter(&painter, width(), height());
    return painter.end();
  }
  return false;
}

void MetricChart::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  const QPointF pos = event->position();
  for (const ChartMarker& m : m_markers) {
    const double px = xAxis->coordToPixel(m.x);
    if (std::abs(px - pos.x()) < 6 && pos.y() < axisRect()->top() + 16) {
      QToolTip::showText(event->globalPosition().toPoint(), m.text, this);
      return;
    }
  }
  const QString value = valueTextAt(pos.x());
  if (value.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(event->globalPosition().toPoint(), value, this);
}

void MetricChart::mousePressEvent(QMouseEvent* event) {
  m_dragging = true;
  QCustomPlot::mousePressEvent(event);
}

void MetricChart::mouseReleaseEvent(QMouseEvent* event) {
  QCustomPlot::mouseReleaseEvent(event);
  m_dragging = false;
}

void MetricChart::mouseDoubleClickEvent(QMouseEvent* event) {
  QCustomPlot::mouseDoubleClickEvent(event);
  m_following = true;
  fitIfFollowing();
  replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace traindeck
