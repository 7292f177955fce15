// Each plot has three point sets (faint left-out trials, trials shown, the best) and one for the
// selected trial; a list's values sit at their index with a text ticker naming them.
#include "sweep_scatter_grid.h"

#include <QGridLayout>
#include <cmath>

#include <qcustomplot.h>

#include "chart_style.h"
#include "sweep_colours.h"

namespace traindeck {

namespace {
QCPGraph* pointSet(QCustomPlot* plot, const QColor& colour, QCPScatterStyle::ScatterShape shape, double size) {
  QCPGraph* g = plot->addGraph();
  g->setLineStyle(QCPGraph::lsNone);
  g->setScatterStyle(QCPScatterStyle(shape, colour, colour, size));
  return g;
}
}  // namespace

SweepScatterGrid::SweepScatterGrid(QWidget* parent) : QWidget(parent), m_grid(new QGridLayout(this)) {
  setObjectName("sweepScatters");
  m_grid->setContentsMargins(0, 0, 0, 0);
  m_grid->setSpacing(2);
}

QCustomPlot* SweepScatterGrid::makePlot() {
  auto* plot = new QCustomPlot(this);
  plot->setMinimumSize(150, 110);
  plot->plotLayout()->insertRow(0);
  plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, QString(), QFont(font().family(), font().pointSize())));
  applyChartPalette(plot, qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0)));
  plot->setNotAntialiasedElements(QCP::aeAll);
  plot->setAntialiasedElements(QCP::aeScatters);
  return plot;
}

void SweepScatterGrid::setView(std::shared_ptr<const SweepView> view, const std::vector<bool>& passing, int selected) {
  m_view = std::move(view);
  const std::size_t wanted = m_view && !m_view->axes.empty() ? m_view->axes.size() - 1 : 0;
  while (m_plots.size() > wanted) {
    delete m_plots.back();
    m_plots.pop_back();
  }
  while (m_plots.size() < wanted) {
    const int i = static_cast<int>(m_plots.size());
    m_plots.push_back(makePlot());
    m_grid->addWidget(m_plots.back(), i / kColumns, i % kColumns);
  }
  for (std::size_t a = 0; a < wanted; ++a) fill(m_plots[a], m_view->axes[a], passing, selected);
}

void SweepScatterGrid::fill(QCustomPlot* plot, const SweepAxis& axis, const std::vector<bool>& passing, int selected) {
  plot->clearGraphs();
  auto* heading = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
  heading->setText(tr("%1 vs %2").arg(m_view->metricName, axis.title));
  plot->setToolTip(axis.key);
  QColor faint = palette().color(QPalette::Mid);
  faint.setAlphaF(0.5f);
  QCPGraph* left = pointSet(plot, faint, QCPScatterStyle::ssCircle, 5);
  QVector<double> lx, ly;
  for (std::size_t t = 0; t < m_view->trials.size(); ++t) {
    const double x = axis.valueOf(m_view->trials[t]), y = m_view->trials[t].metric;
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    const bool passes = t >= passing.size() || passing[t];
    if (!passes) {
      lx << x;
      ly << y;
      continue;
    }
    QCPGraph* g = pointSet(plot, sweepTrialColour(*m_view, t, true, palette()), QCPScatterStyle::ssDisc, 6);
    g->setData({x}, {y}, true);
  }
  left->setData(lx, ly, true);
  const auto mark = [&](int t, const QColor& colour, QCPScatterStyle::ScatterShape shape, double size) {
    if (t < 0) return;
    const double x = axis.valueOf(m_view->trials[static_cast<std::size_t>(t)]);
    const double y = m_view->trials[static_cast<std::size_t>(t)].metric;
    if (std::isfinite(x) && std::isfinite(y)) pointSet(plot, colour, shape, size)->setData({x}, {y}, true);
  };
  mark(m_view->best, palette().color(QPalette::Text), QCPScatterStyle::ssStar, 14);
  mark(selected, palette().color(QPalette::Highlight), QCPScatterStyle::ssCircle, 12);
  setLogAxis(plot->xAxis, axis.log);
  if (axis.categorical) {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (qsizetype c = 0; c < axis.categories.size(); ++c) ticker->addTick(static_cast<double>(c), axis.categories[c]);
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setRange(-0.5, static_cast<double>(axis.categories.size()) - 0.5);
  } else if (std::isfinite(axis.min)) {
    const double pad = axis.log ? 1.15 : 0;
    plot->xAxis->setRange(axis.log ? axis.min / pad : axis.min - 0.05 * (axis.max - axis.min + 1e-12),
                          axis.log ? axis.max * pad : axis.max + 0.05 * (axis.max - axis.min + 1e-12));
  }
  const SweepAxis& metric = m_view->axes.back();
  if (std::isfinite(metric.min)) {
    const double span = std::max(metric.max - metric.min, 1e-9 * std::max(1.0, std::abs(metric.max)));
    plot->yAxis->setRange(metric.min - 0.08 * span, metric.max + 0.08 * span);
  }
  plot->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace traindeck
