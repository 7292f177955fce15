// Parallel coordinates of a sweep's trials: one vertical axis per swept parameter (log where
// the axis is) and the metric's last, one line per trial coloured by its metric. Dragging along
// an axis brushes a range of it (a click on the axis clears that axis's brush; on a line, picks
// its trial); the page turns brushes into its filter, and trials left out are drawn faint. Painted with QPainter.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "sweep_filter.h"

namespace traindeck {

class SweepParallelView : public QWidget {
  Q_OBJECT
 public:
  explicit SweepParallelView(QWidget* parent = nullptr);

  void setView(std::shared_ptr<const SweepView> view, const SweepFilter& filter, const std::vector<bool>& passing);
  void setSelectedTrial(int trial);
  // The axis's x on the widget and the y of a fraction (0 bottom, 1 top): for tests.
  int axisX(int axis) const;
  int fractionY(double fraction) const;

  QSize minimumSizeHint() const override { return {320, 180}; }

 signals:
  // A range of the axis with this key ("" the metric's), in its values; cleared: brushCleared.
  void brushChanged(const QString& key, double low, double high);
  void brushCleared(const QString& key);
  // A click on a trial's line, away from the axes (index in the view).
  void trialClicked(int trial);

 protected:
  bool event(QEvent* event) override;  // a tooltip names the trial under the pointer
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  int axisAt(int x) const;  // the axis within reach of x, or -1
  int trialAt(QPointF at) const;  // the trial whose line passes nearest, within reach, or -1
  std::vector<double> ticksOf(const SweepAxis& axis) const;
  double fractionAt(int y) const;
  void paintAxes(QPainter& p) const;
  void paintTrial(QPainter& p, std::size_t trial, const QColor& colour, double width) const;

  std::shared_ptr<const SweepView> m_view;
  SweepFilter m_filter;
  std::vector<bool> m_passing;
  int m_selected = -1;
  struct Drag {
    int axis = -1;
    int fromY = 0, toY = 0;
  };
  std::optional<Drag> m_drag;
};

}  // namespace traindeck
