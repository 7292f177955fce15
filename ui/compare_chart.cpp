#include "compare_chart.h"

#include <QDateTime>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <limits>

#include "chart_style.h"

namespace traindeck {

namespace {

constexpr double kHoverPixels = 6;  // how near the pointer a line counts as hovered

// The index of the point of `xs` (ascending) nearest to x; -1 when xs is empty.
int nearestIndex(const QVector<double>& xs, double x) {
  if (xs.isEmpty()) return -1;
  const auto it = std::lower_bound(xs.begin(), xs.end(), x);
  if (it == xs.begin()) return 0;
  if (it == xs.end()) return static_cast<int>(xs.size() - 1);
  const auto before = it - 1;
  return static_cast<int>((x - *before <= *it - x ? before : it) - xs.begin());
}

QCPRange rangeOf(const QVector<CompareLine>& lines, bool useX, bool& found) {
  found = false;
  double lo = INFINITY, hi = -INFINITY;
  for (const CompareLine& line : lines)
    for (int i = 0; i < line.x.size(); ++i) {
      const double v = useX ? line.x[i] : line.y[i];
      if (!std::isfinite(v) || !std::isfinite(line.y[i])) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      found = true;
      if (!useX && i < line.low.size() && i < line.high.size())  // a band widens the y range
        for (double edge : {line.low[i], line.high[i]})
          if (std::isfinite(edge)) {
            lo = std::min(lo, edge);
            hi = std::max(hi, edge);
          }
    }
  return found ? QCPRange(lo, hi) : QCPRange(0, 1);
}

}  // namespace

CompareChart::CompareChart(const QString& title, const QString& valueLabel, QWidget* parent) : QCustomPlot(parent) {
  setObjectName("compareChart:" + title);
  yAxis->setLabel(valueLabel);
  plotLayout()->insertRow(0);
  m_heading = new QCPTextElement(this, QString(), QFont(font().family(), font().pointSize() + 1, QFont::Bold));
  plotLayout()->addElement(0, 0, m_heading);
  m_cursor = new QCPItemStraightLine(this);
  m_cursor->setPen(QPen(QColor(128, 128, 128), 1, Qt::DashLine));
  m_cursor->setVisible(false);
  applyChartPalette(this, m_heading);
  legend->setFont(QFont(font().family(), std::max(7, font().pointSize() - 1)));
  axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  setPlottingHints(QCP::phFastPolylines | QCP::phCacheLabels);
  connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this](const QCPRange& range) {
    if (!m_userInput) return;
    m_following = false;
    emit xRangeChangedByUser(range);
  });
  setMinimumHeight(150);
  setTitle(title);
}

void CompareChart::setTitle(const QString& title, const QColor& color) {
  m_title = title;
  showTitle();
  if (color.isValid()) m_heading->setTextColor(color);
}

QString CompareChart::shownTitle() const {
  return m_heading->text();
}

void CompareChart::showTitle() {
  const QFontMetrics metrics(m_heading->font());
  const int room = std::max(metrics.averageCharWidth() * 12, width() - 2 * metrics.averageCharWidth());
  m_heading->setText(metrics.elidedText(m_title, Qt::ElideMiddle, room));
}

QSize CompareChart::minimumSizeHint() const {
  const QSize plot = QCustomPlot::minimumSizeHint();
  return {std::min(plot.width(), 12 * fontMetrics().averageCharWidth() + 120), plot.height()};
}

void CompareChart::resizeEvent(QResizeEvent* event) {
  QCustomPlot::resizeEvent(event);  // a replot is queued: the heading elided anew is in it
  showTitle();
}

void CompareChart::setLines(const QVector<CompareLine>& lines) {
  setLineCount(static_cast<int>(lines.size()));
  for (int i = 0; i < lines.size(); ++i) setLine(i, lines[i]);
}

void CompareChart::setLineCount(int count) {
  m_lines.resize(count);
  while (m_main.size() > count) {
    removeGraph(m_main.takeLast());
    removeGraph(m_high.takeLast());
    removeGraph(m_low.takeLast());
    removeGraph(m_raw.takeLast());
  }
  while (m_main.size() < count) {
    m_raw.push_back(addGraph());
    m_raw.back()->removeFromLegend();
    m_low.push_back(addGraph());
    m_low.back()->removeFromLegend();
    m_low.back()->setPen(Qt::NoPen);
    m_high.push_back(addGraph());
    m_high.back()->removeFromLegend();
    m_high.back()->setPen(Qt::NoPen);
    m_high.back()->setChannelFillGraph(m_low.back());  // the band: filled from high down to low
    m_main.push_back(addGraph());
  }
}

void CompareChart::setLine(int index, const CompareLine& line) {
  m_lines[index] = line;
  m_main[index]->setName(line.name);
  m_main[index]->setData(line.x, line.y, /*alreadySorted=*/true);
  m_main[index]->setScatterStyle(
      QCPScatterStyle(line.x.size() <= 60 && !line.member ? QCPScatterStyle::ssCircle : QCPScatterStyle::ssNone, 4));
  if (line.member) m_main[index]->removeFromLegend();
  const bool band = !line.low.isEmpty() && line.low.size() == line.x.size() && line.high.size() == line.x.size();
  m_low[index]->setData(band ? line.x : QVector<double>(), band ? line.low : QVector<double>(), true);
  m_high[index]->setData(band ? line.x : QVector<double>(), band ? line.high : QVector<double>(), true);
  m_low[index]->setVisible(band);
  m_high[index]->setVisible(band);
  m_raw[index]->setData(line.rawY.isEmpty() ? QVector<double>() : line.x, line.rawY, true);
  m_raw[index]->setVisible(!line.rawY.isEmpty());
  applyEmphasis(index, Emphasis::Normal);
}

void CompareChart::applyEmphasis(int index, Emphasis emphasis) {
  const CompareLine& line = m_lines[index];
  const auto tinted = [&line](int alpha) {
    QColor c = line.color;
    c.setAlpha(alpha);
    return c;
  };
  const double width = line.member ? 1 : lineWidthFor(line.x.size());
  switch (emphasis) {
    case Emphasis::Normal:
      m_main[index]->setPen(line.member ? QPen(tinted(90), width) : QPen(line.color, width));
      m_high[index]->setBrush(QBrush(tinted(55)));
      m_raw[index]->setPen(QPen(tinted(60), 1));
      break;
    case Emphasis::Highlighted:
      m_main[index]->setPen(QPen(line.color, width + 2));
      m_high[index]->setBrush(QBrush(tinted(80)));
      m_raw[index]->setPen(QPen(tinted(60), 1));
      break;
    case Emphasis::Faded:
      m_main[index]->setPen(QPen(tinted(line.member ? 20 : 40), width));
      m_high[index]->setBrush(QBrush(tinted(12)));
      m_raw[index]->setPen(QPen(tinted(12), 1));
      break;
  }
}

void CompareChart::setHighlight(const LineOwner& hovered) {
  for (int i = 0; i < m_lines.size(); ++i)
    applyEmphasis(i, !hovered.any()                              ? Emphasis::Normal
                     : m_lines[i].owner.isHighlightedBy(hovered) ? Emphasis::Highlighted
                                                                 : Emphasis::Faded);
  replot(QCustomPlot::rpQueuedReplot);
}

LineOwner CompareChart::lineOwnerAt(const QPointF& pos) const {
  LineOwner nearest;
  double best = kHoverPixels;
  for (int i = 0; i < m_main.size(); ++i) {
    if (!m_lines[i].owner.any()) continue;
    const double distance = m_main[i]->selectTest(pos, /*onlySelectable=*/false);
    if (distance >= 0 && distance <= best) {
      best = distance;
      nearest = m_lines[i].owner;
    }
  }
  return nearest;
}

void CompareChart::setShowLegend(bool on) {
  legend->setVisible(on);
}

void CompareChart::setLogScale(bool on) {
  setLogAxis(yAxis, on);
}

void CompareChart::setWallClockX(bool on, const QString& label) {
  xAxis->setLabel(label);
  if (on == m_wallClock) return;
  m_wallClock = on;
  if (on) {
    auto ticker = QSharedPointer<QCPAxisTickerDateTime>::create();
    ticker->setDateTimeFormat("MMM d\nHH:mm");
    xAxis->setTicker(ticker);
  } else {
    xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
  }
}

QCPRange CompareChart::dataXRange(bool& found) const {
  return rangeOf(m_lines, true, found);
}

QCPRange CompareChart::dataYRange(bool& found) const {
  return rangeOf(m_lines, false, found);
}

QVector<CrosshairValue> CompareChart::valuesAt(double x) const {
  QVector<CrosshairValue> values;
  for (int i = 0; i < m_lines.size(); ++i) {
    if (m_lines[i].member) continue;
    const int at = nearestIndex(m_lines[i].x, x);
    if (at >= 0) values.push_back({i, m_lines[i].x[at], m_lines[i].y[at]});
  }
  return values;
}

QString CompareChart::xText(double x) const {
  if (m_wallClock) return QDateTime::fromMSecsSinceEpoch(std::llround(x * 1000)).toString("yyyy-MM-dd HH:mm:ss");
  return QStringLiteral("%1 %2").arg(xAxis->label().toLower()).arg(x, 0, 'g', 8);
}

QString CompareChart::crosshairText(double x) const {
  const QVector<CrosshairValue> values = valuesAt(x);
  // The heading names the nearest point's x ("step 469"), not the pointer's ("step 468.97508").
  double shown = x, nearest = std::numeric_limits<double>::infinity();
  for (const CrosshairValue& v : values)
    if (std::abs(v.x - x) < nearest) {
      nearest = std::abs(v.x - x);
      shown = v.x;
    }
  QString text = QStringLiteral("<b>%1</b>").arg(xText(shown).toHtmlEscaped());
  for (const CrosshairValue& v : values) {
    const CompareLine& line = m_lines[v.line];
    text += QStringLiteral("<br><span style=\"color:%1\">&#9632;</span> %2: %3")
                .arg(line.color.name(), line.name.toHtmlEscaped(),
                     std::isfinite(v.y) ? QString::number(v.y, 'g', 5) : QStringLiteral("—"));
  }
  return text;
}

void CompareChart::showCrosshair(double x) {
  m_cursor->point1->setCoords(x, 0);
  m_cursor->point2->setCoords(x, 1);
  m_cursor->setVisible(true);
  replot(QCustomPlot::rpQueuedReplot);
}

void CompareChart::hideCrosshair() {
  if (!m_cursor->visible()) return;
  m_cursor->setVisible(false);
  replot(QCustomPlot::rpQueuedReplot);
}

void CompareChart::mouseMoveEvent(QMouseEvent* event) {
  m_userInput = true;
  QCustomPlot::mouseMoveEvent(event);
  m_userInput = false;
  const QPointF pos = event->position();
  if (m_heading->outerRect().contains(pos.toPoint()) && m_heading->text() != m_title) {  // an elided heading, whole
    QToolTip::showText(event->globalPosition().toPoint(), m_title, this);
    return;
  }
  if (!axisRect()->rect().contains(pos.toPoint()) || m_lines.isEmpty()) {
    emit crosshairLeft();
    emit lineHovered({});
    QToolTip::hideText();
    return;
  }
  emit lineHovered(lineOwnerAt(pos));
  const double x = xAxis->pixelToCoord(pos.x());
  emit crosshairMoved(x);
  QToolTip::showText(event->globalPosition().toPoint(), crosshairText(x), this);
}

void CompareChart::wheelEvent(QWheelEvent* event) {
  m_userInput = true;
  QCustomPlot::wheelEvent(event);
  m_userInput = false;
}

void CompareChart::mouseDoubleClickEvent(QMouseEvent* event) {
  QCustomPlot::mouseDoubleClickEvent(event);
  m_following = true;
  emit followingRequested();
}

void CompareChart::leaveEvent(QEvent* event) {
  QCustomPlot::leaveEvent(event);
  emit crosshairLeft();
  emit lineHovered({});
}

void CompareChart::changeEvent(QEvent* event) {
  QCustomPlot::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    applyChartPalette(this, m_heading);
    replot(QCustomPlot::rpQueuedReplot);
  }
}

}  // namespace traindeck
