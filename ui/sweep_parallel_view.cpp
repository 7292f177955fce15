// Trials are drawn faint ones first, then by metric from worst to best, so the best lines lie
// on top; the best trial last and wide, the selected one wider still.
#include "sweep_parallel_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "sweep_colours.h"

namespace traindeck {

namespace {
constexpr int kLeft = 46, kRight = 46, kTop = 34, kBottom = 22;
constexpr int kReach = 14;  // pixels either side of an axis that brush it
}  // namespace

SweepParallelView::SweepParallelView(QWidget* parent) : QWidget(parent) {
  setObjectName("sweepParallel");
  setMouseTracking(false);
  setToolTip(tr("Drag along an axis to keep only the trials in that range; click the axis to clear it"));
}

void SweepParallelView::setView(std::shared_ptr<const SweepView> view, const SweepFilter& filter,
                                const std::vector<bool>& passing) {
  m_view = std::move(view);
  m_filter = filter;
  m_passing = passing;
  update();
}

void SweepParallelView::setSelectedTrial(int trial) {
  m_selected = trial;
  update();
}

int SweepParallelView::axisX(int axis) const {
  const int n = m_view ? static_cast<int>(m_view->axes.size()) : 0;
  if (n <= 1) return width() / 2;
  return kLeft + (width() - kLeft - kRight) * axis / (n - 1);
}

int SweepParallelView::fractionY(double fraction) const {
  return static_cast<int>(std::lround(height() - kBottom - fraction * (height() - kTop - kBottom)));
}

double SweepParallelView::fractionAt(int y) const {
  return std::clamp(static_cast<double>(height() - kBottom - y) / std::max(1, height() - kTop - kBottom), 0.0, 1.0);
}

int SweepParallelView::axisAt(int x) const {
  if (!m_view) return -1;
  for (int a = 0; a < static_cast<int>(m_view->axes.size()); ++a)
    if (std::abs(x - axisX(a)) <= kReach) return a;
  return -1;
}

int SweepParallelView::trialAt(QPointF at) const {
  if (!m_view || m_view->axes.size() < 2) return -1;
  const double axesSpan = static_cast<double>(axisX(1) - axisX(0));
  const auto a = static_cast<std::size_t>(
      std::clamp((at.x() - axisX(0)) / std::max(1.0, axesSpan), 0.0, static_cast<double>(m_view->axes.size() - 2)));
  const double t = (at.x() - axisX(static_cast<int>(a))) / std::max(1.0, axesSpan);
  int nearest = -1;
  double best = kReach / 2.0;
  for (std::size_t trial = 0; trial < m_view->trials.size(); ++trial) {
    const double f0 = m_view->axes[a].fraction(m_view->axes[a].valueOf(m_view->trials[trial]));
    const double f1 = m_view->axes[a + 1].fraction(m_view->axes[a + 1].valueOf(m_view->trials[trial]));
    if (!std::isfinite(f0) || !std::isfinite(f1)) continue;
    const double y = fractionY(f0) + t * (fractionY(f1) - fractionY(f0));
    if (std::abs(y - at.y()) < best) {
      best = std::abs(y - at.y());
      nearest = static_cast<int>(trial);
    }
  }
  return nearest;
}

std::vector<double> SweepParallelView::ticksOf(const SweepAxis& axis) const {
  std::vector<double> ticks;
  if (axis.categorical) {
    for (qsizetype c = 0; c < axis.categories.size(); ++c) ticks.push_back(static_cast<double>(c));
    return ticks;
  }
  if (!axis.listed.empty() || !std::isfinite(axis.min)) return axis.listed;
  ticks = {axis.min, axis.max};
  if (axis.log && axis.min > 0)  // the powers of ten between the ends
    for (double p = std::pow(10.0, std::ceil(std::log10(axis.min) + 0.15)); p < axis.max / 1.4; p *= 10)
      ticks.push_back(p);
  else if (axis.max > axis.min)
    ticks.push_back((axis.min + axis.max) / 2);
  return ticks;
}

void SweepParallelView::paintTrial(QPainter& p, std::size_t trial, const QColor& colour, double width) const {
  QPainterPath path;
  bool open = false;
  for (std::size_t a = 0; a < m_view->axes.size(); ++a) {
    const SweepAxis& axis = m_view->axes[a];
    const double f = axis.fraction(axis.valueOf(m_view->trials[trial]));
    if (!std::isfinite(f)) {  // not set on this axis: a gap
      open = false;
      continue;
    }
    const QPointF at(axisX(static_cast<int>(a)), fractionY(f));
    if (open)
      path.lineTo(at);
    else
      path.moveTo(at);
    open = true;
  }
  p.setPen(QPen(colour, width));
  p.drawPath(path);
}

void SweepParallelView::paintAxes(QPainter& p) const {
  const QColor text = palette().color(QPalette::Text);
  const QFontMetrics fm(font());
  for (std::size_t a = 0; a < m_view->axes.size(); ++a) {
    const SweepAxis& axis = m_view->axes[a];
    const int x = axisX(static_cast<int>(a));
    if (auto brush = m_filter.brushes.find(axis.key); brush != m_filter.brushes.end()) {
      const int y1 = fractionY(axis.fraction(brush->second)), y0 = fractionY(axis.fraction(brush->first));
      p.fillRect(QRect(x - 7, std::min(y0, y1), 14, std::abs(y0 - y1) + 1), QColor(52, 120, 200, 90));
    }
    p.setPen(QPen(text, axis.isMetric() ? 2 : 1));
    p.drawLine(x, fractionY(0), x, fractionY(1));
    const QString title = axis.title + (axis.log ? tr(" (log)") : QString());
    p.drawText(QRect(x - 70, 2, 140, fm.height()), Qt::AlignCenter, fm.elidedText(title, Qt::ElideMiddle, 140));
    for (double tick : ticksOf(axis)) {
      const int y = fractionY(axis.fraction(tick));
      p.drawLine(x - 3, y, x + 3, y);
      const QString label = fm.elidedText(axis.label(tick), Qt::ElideRight, kLeft - 6);
      p.drawText(QRect(x + 4, y - fm.height() / 2, kLeft - 4, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, label);
    }
  }
}

bool SweepParallelView::event(QEvent* event) {
  if (event->type() != QEvent::ToolTip || !m_view) return QWidget::event(event);
  const auto* help = static_cast<QHelpEvent*>(event);
  const int trial = axisAt(help->pos().x()) < 0 ? trialAt(help->pos()) : -1;
  if (trial < 0) {
    QToolTip::showText(help->globalPos(), toolTip(), this);
    return true;
  }
  const SweepTrialView& t = m_view->trials[static_cast<std::size_t>(trial)];
  QToolTip::showText(
      help->globalPos(),
      QString::fromStdString(t.record.params.name) + "\n" + trialStateText(t.record, m_view->unit) +
          (std::isfinite(t.metric) ? QString("\n%1 %2").arg(m_view->metricName).arg(t.metric, 0, 'g', 5) : QString()),
      this);
  return true;
}

void SweepParallelView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), palette().color(QPalette::Base));
  if (!m_view || m_view->trials.empty()) {
    p.setPen(palette().color(QPalette::Text));
    p.drawText(rect(), Qt::AlignCenter, tr("No trials yet"));
    return;
  }
  std::vector<std::size_t> order(m_view->trials.size());
  std::iota(order.begin(), order.end(), 0);
  const auto passes = [this](std::size_t t) { return t >= m_passing.size() || m_passing[t]; };
  const auto badness = [this](std::size_t t) {
    const double m = m_view->trials[t].metric;
    if (!std::isfinite(m)) return 1e300;
    return m_view->goal == MetricGoal::Min ? m : -m;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (passes(a) != passes(b)) return !passes(a);
    return badness(a) > badness(b);
  });
  for (std::size_t t : order) paintTrial(p, t, sweepTrialColour(*m_view, t, passes(t), palette()), 1.4);
  if (m_view->best >= 0) {
    const auto best = static_cast<std::size_t>(m_view->best);
    paintTrial(p, best, palette().color(QPalette::Text), 4.0);
    paintTrial(p, best, sweepTrialColour(*m_view, best, passes(best), palette()), 2.4);
  }
  if (m_selected >= 0 && m_selected < static_cast<int>(m_view->trials.size()))
    paintTrial(p, static_cast<std::size_t>(m_selected), palette().color(QPalette::Highlight), 3.0);
  paintAxes(p);
  if (m_drag) {
    const int x = axisX(m_drag->axis);
    p.fillRect(QRect(x - 7, std::min(m_drag->fromY, m_drag->toY), 14, std::abs(m_drag->toY - m_drag->fromY) + 1),
               QColor(52, 120, 200, 90));
  }
}

void SweepParallelView::mousePressEvent(QMouseEvent* event) {
  const int axis = axisAt(static_cast<int>(event->position().x()));
  if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
  if (axis < 0) {
    if (const int trial = trialAt(event->position()); trial >= 0) emit trialClicked(trial);
    return;
  }
  const int y = static_cast<int>(event->position().y());
  m_drag = Drag{axis, y, y};
}

void SweepParallelView::mouseMoveEvent(QMouseEvent* event) {
  if (!m_drag) return;
  m_drag->toY = static_cast<int>(event->position().y());
  update();
}

void SweepParallelView::mouseReleaseEvent(QMouseEvent* event) {
  if (!m_drag) return;
  const Drag drag = *m_drag;
  m_drag.reset();
  update();
  const SweepAxis& axis = m_view->axes[static_cast<std::size_t>(drag.axis)];
  const int toY = static_cast<int>(event->position().y());
  if (std::abs(toY - drag.fromY) < 3) return emit brushCleared(axis.key);
  const double a = axis.valueAt(fractionAt(drag.fromY)), b = axis.valueAt(fractionAt(toY));
  emit brushChanged(axis.key, std::min(a, b), std::max(a, b));
}

}  // namespace traindeck
