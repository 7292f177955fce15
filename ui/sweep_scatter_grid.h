// The metric against each swept parameter: a small scatter per parameter, side by side, with a
// log x axis where the parameter's axis is log, category names on a list's axis, the trials
// the brushes leave out faint and the best trial as a star. Draws what the page gives it.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "sweep_view.h"

class QCustomPlot;
class QGridLayout;

namespace traindeck {

class SweepScatterGrid : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kColumns = 3;

  explicit SweepScatterGrid(QWidget* parent = nullptr);
  void setView(std::shared_ptr<const SweepView> view, const std::vector<bool>& passing, int selected);
  const std::vector<QCustomPlot*>& plots() const { return m_plots; }
  // Room for a row of plots before any exists: a splitter lays the page out before a sweep is read.
  QSize minimumSizeHint() const override { return {320, 120}; }
  QSize sizeHint() const override { return {480, 240}; }

 private:
  void fill(QCustomPlot* plot, const SweepAxis& axis, const std::vector<bool>& passing, int selected);
  QCustomPlot* makePlot();

  QGridLayout* m_grid;
  std::vector<QCustomPlot*> m_plots;  // one per parameter axis, reused while their number stays
  std::shared_ptr<const SweepView> m_view;
};

}  // namespace traindeck
