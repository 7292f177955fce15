#include "chart_style.h"

#include <algorithm>

#include <qcustomplot.h>

namespace traindeck {

void applyChartPalette(QCustomPlot* plot, QCPTextElement* heading) {
  const QPalette pal = plot->palette();
  plot->setBackground(pal.color(QPalette::Base));
  for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
    axis->setBasePen(QPen(pal.color(QPalette::Text)));
    axis->setTickPen(QPen(pal.color(QPalette::Text)));
    axis->setSubTickPen(QPen(pal.color(QPalette::Mid)));
    axis->setTickLabelColor(pal.color(QPalette::Text));
    axis->setLabelColor(pal.color(QPalette::Text));
    axis->grid()->setPen(QPen(pal.color(QPalette::Midlight), 0, Qt::DotLine));
  }
  if (heading) heading->setTextColor(pal.color(QPalette::Text));
  plot->legend->setBrush(QBrush(pal.color(QPalette::Base)));
  plot->legend->setTextColor(pal.color(QPalette::Text));
}

int nextRedrawIntervalMs(double lastCostMs) {
  return std::clamp(static_cast<int>(4 * lastCostMs), 40, 1000);
}

double lineWidthFor(long long points) {
  return points > 5000 ? 1.0 : 2.0;
}

void setLogAxis(QCPAxis* axis, bool on) {
  axis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (on)
    axis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  else
    axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
}

}  // namespace traindeck
