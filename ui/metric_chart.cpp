#include "metric_chart.h"

#include <QSvgGenerator>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <vector>

#include "chart_style.h"

namespace traindeck {

namespace {

const QVector<QColor> kLineColors = {QColor(31, 119, 180),  QColor(255, 127, 14),  QColor(44, 160, 44),
                                     QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),
                                     QColor(227, 119, 194), QColor(127, 127, 127)};

QColor markerColor(const QString& level) {
  if (level == "error") return QColor(214, 39, 40);
  if (level == "warn") return QColor(230, 160, 20);
  return QColor(120, 120, 120);
}

}  // namespace

void SeriesBounds::extend(const QVector<double>& x, const QVector<double>& y) {
  // Plain min and max in one pass (QCPRange::expand is not inlined: a million calls show).
  double keyLo = keys.lower, keyHi = keys.upper, lo = values.lower, hi = values.upper;
  bool found = any;
  const int n = static_cast<int>(std::min(x.size(), y.size()));
  for (int i = 0; i < n; ++i) {
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
  keys = QCPRange(keyLo, keyHi);
  values = QCPRange(lo, hi);
  any = true;
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
    if (QGuiApplication::mouseButtons() != Qt::NoButton) m_following = false;
    if (!m_following) fitYToVisibleX();
  });
  connect(this, &QCustomPlot::mouseWheel, this, [this] { m_following = false; });
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
  m_raw->setData(x, raw, /*alreadySorted=*/true);
  m_smooth->setData(smoothed.isEmpty() ? QVector<double>() : x, smoothed, true);
  m_mainBounds = SeriesBounds();
  m_mainBounds.extend(x, raw);
  m_mainBounds.extend(x, smoothed);
  m_smooth->setVisible(!smoothed.isEmpty());
  // Only lines that exist are named in the legend.
  if (raw.isEmpty() || smoothed.isEmpty()) {
    m_raw->removeFromLegend();
    m_smooth->removeFromLegend();
  } else {
    m_raw->addToLegend();
    m_smooth->addToLegend();
  }
  QColor faint = kLineColors[0];
  faint.setAlpha(smoothed.isEmpty() ? 255 : 70);
  m_raw->setPen(QPen(faint, 1));
  m_smooth->setPen(QPen(kLineColors[0], lineWidthFor(x.size())));
}

void MetricChart::appendSeries(const QVector<double>& x, const QVector<double>& raw, const QVector<double>& smoothed) {
  m_raw->addData(x, raw, /*alreadySorted=*/true);
  if (!smoothed.isEmpty()) m_smooth->addData(x, smoothed, true);
  m_mainBounds.extend(x, raw);
  m_mainBounds.extend(x, smoothed);
  m_smooth->setPen(QPen(kLineColors[0], lineWidthFor(m_raw->dataCount())));
}

void MetricChart::setExtraLines(const QVector<QString>& names, const QVector<QVector<double>>& xs,
                                const QVector<QVector<double>>& ys) {
  while (m_extra.size() > names.size()) removeGraph(m_extra.takeLast());
  while (m_extra.size() < names.size()) {
    QCPGraph* g = addGraph();
    g->setPen(QPen(kLineColors[(m_extra.size() + 1) % kLineColors.size()], 2));
    m_extra.push_back(g);
  }
  m_extraBounds = QVector<SeriesBounds>(names.size());
  for (int i = 0; i < names.size(); ++i) {
    m_extra[i]->setName(names[i]);
    m_extra[i]->setData(xs[i], ys[i], true);
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
  for (int i = 0; i < graphCount(); ++i) {
    QCPGraph* g = graph(i);
    if (g == m_markerGraph || !g->visible()) continue;
    if (m_ignoreOutliers) {
      for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
        if ((!keys || keys->contains(it->key)) && std::isfinite(it->value)) values.push_back(it->value);
      continue;
    }
    bool found = false;
    const QCPRange r = keys ? g->getValueRange(found, QCP::sdBoth, *keys) : g->getValueRange(found);
    if (found) out = out ? QCPRange(std::min(out->lower, r.lower), std::max(out->upper, r.upper)) : r;
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
  const QSharedPointer<QCPGraphDataContainer> raw = m_raw->data();
  if (raw->isEmpty()) return {};
  const double key = xAxis->pixelToCoord(pixelX);
  // The nearer of the first point at or after key and the one before it.
  auto best = raw->findBegin(key, false);
  if (best == raw->constEnd() ||
      (best != raw->constBegin() && std::abs((best - 1)->key - key) < std::abs(best->key - key)))
    --best;
  if (std::abs(xAxis->coordToPixel(best->key) - pixelX) > 12) return {};
  QString text = QStringLiteral("%1 %2: %3")
                     .arg(xAxis->label().isEmpty() ? tr("x") : xAxis->label())
                     .arg(best->key, 0, 'g', 10)
                     .arg(best->value, 0, 'g', 6);
  const QSharedPointer<QCPGraphDataContainer> smooth = m_smooth->data();
  if (auto s = smooth->findBegin(best->key, false); s != smooth->constEnd() && s->key == best->key)  // same x
    text += tr(", smoothed %1").arg(s->value, 0, 'g', 6);
  return text;
}

bool MetricChart::exportTo(const QString& path) {
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

void MetricChart::mouseDoubleClickEvent(QMouseEvent* event) {
  QCustomPlot::mouseDoubleClickEvent(event);
  m_following = true;
  fitIfFollowing();
  replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace traindeck
