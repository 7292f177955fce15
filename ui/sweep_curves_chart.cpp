// The graphs are made again on each new view: a sweep has tens to hundreds of trials and the
// page redraws only when a file changed (at most once a second).
#include "sweep_curves_chart.h"

#include <cmath>

#include "chart_style.h"
#include "sweep_colours.h"

namespace traindeck {

namespace {
// Tokens and steps as "20.5k", "1.2M": long numbers crowd a narrow chart's axis.
class CompactTicker : public QCPAxisTicker {
 protected:
  QString getTickLabel(double tick, const QLocale&, QChar, int) override {
    return progressText(static_cast<std::int64_t>(std::llround(tick)), ProgressUnit::Steps).section(' ', 0, 0);
  }
};
}  // namespace

SweepCurvesChart::SweepCurvesChart(QWidget* parent) : QCustomPlot(parent) {
  setObjectName("sweepCurves");
  plotLayout()->insertRow(0);
  m_heading = new QCPTextElement(this, tr("Learning curves"), QFont(font().family(), font().pointSize(), QFont::Bold));
  plotLayout()->addElement(0, 0, m_heading);
  applyChartPalette(this, m_heading);
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  setPlottingHints(QCP::phFastPolylines | QCP::phCacheLabels);
  setMinimumSize(260, 160);
  auto ticker = QSharedPointer<CompactTicker>::create();
  ticker->setTickCount(5);
  xAxis->setTicker(ticker);
  legend->setVisible(true);
  QColor behind = palette().color(QPalette::Base);
  behind.setAlphaF(0.75f);  // curves stay visible under it
  legend->setBrush(behind);
  legend->setFont(QFont(font().family(), std::max(7, font().pointSize() - 1)));
  axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
}

QCPGraph* SweepCurvesChart::addLine(std::size_t trial, const QColor& colour, double width) {
  const SweepTrialView& t = m_view->trials[trial];
  QCPGraph* g = addGraph();
  g->setPen(QPen(colour, width));
  g->setData(t.x, t.y, true);
  g->removeFromLegend();
  return g;
}

void SweepCurvesChart::setView(std::shared_ptr<const SweepView> view, const std::vector<bool>& passing, int selected) {
  m_view = std::move(view);
  clearGraphs();
  const auto passes = [&](std::size_t t) { return t >= passing.size() || passing[t]; };
  for (int round = 0; round < 2; ++round)  // the faint ones below
    for (std::size_t t = 0; t < m_view->trials.size(); ++t)
      if (passes(t) == (round == 1)) addLine(t, sweepTrialColour(*m_view, t, passes(t), palette()), 1.2);
  if (m_view->best >= 0) {
    const auto best = static_cast<std::size_t>(m_view->best);
    addLine(best, palette().color(QPalette::Text), 4.0);
    addLine(best, sweepTrialColour(*m_view, best, passes(best), palette()), 2.4);
  }
  if (selected >= 0 && selected < static_cast<int>(m_view->trials.size()))
    addLine(static_cast<std::size_t>(selected), palette().color(QPalette::Highlight), 2.6);

  const auto marks = [this](const QString& name, const QColor& colour, QCPScatterStyle::ScatterShape shape,
                            double size) {
    QCPGraph* g = addGraph();
    g->setName(name);
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(shape, QPen(colour, 1.6), QBrush(Qt::NoBrush), size));
    return g;
  };
  m_rungs = marks(tr("rung result"), palette().color(QPalette::Text), QCPScatterStyle::ssCircle, 5);
  m_pruned = marks(tr("pruned here"), QColor(0xd7, 0x30, 0x27), QCPScatterStyle::ssCross, 10);
  m_promoted = marks(tr("promoted from here"), QColor(0x34, 0x78, 0xc8), QCPScatterStyle::ssTriangle, 9);
  for (std::size_t t = 0; t < m_view->trials.size(); ++t) {
    const TrialRecord& record = m_view->trials[t].record;
    for (const RungResult& r : record.rungs)
      if (std::isfinite(r.metric)) m_rungs->addData(static_cast<double>(r.at), r.metric);
    if (const auto at = prunedAt(record); at && std::isfinite(at->metric))
      m_pruned->addData(static_cast<double>(at->at), at->metric);
    if (record.state == TrialState::Promoted)
      if (const RungResult* from = record.resultAt(record.clearedRung); from && std::isfinite(from->metric))
        m_promoted->addData(static_cast<double>(from->at), from->metric);
  }
  xAxis->setLabel(m_view->unit == ProgressUnit::Steps ? tr("steps") : tr("tokens"));
  yAxis->setLabel(m_view->metricName);
  m_heading->setText(tr("Learning curves: %1 of each trial").arg(m_view->metricName));
  rescaleAxes();
  replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace traindeck
