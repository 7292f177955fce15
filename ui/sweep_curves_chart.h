// Learning curves of every trial of a sweep: the metric over tokens (or steps: the rungs'
// unit), one line per trial in its colour, faint where the brushes leave it out, the best wide;
// each rung result a small circle, each point where early stopping pruned a trial a red cross,
// and a promoted trial's rung a triangle.
#pragma once

#include <memory>
#include <vector>

#include <qcustomplot.h>

#include "sweep_view.h"

namespace traindeck {

class SweepCurvesChart : public QCustomPlot {
  Q_OBJECT
 public:
  explicit SweepCurvesChart(QWidget* parent = nullptr);
  void setView(std::shared_ptr<const SweepView> view, const std::vector<bool>& passing, int selected);
  // The marks drawn, for tests: where trials were pruned, and every rung result.
  QCPGraph* prunedMarks() const { return m_pruned; }
  QCPGraph* rungMarks() const { return m_rungs; }

 private:
  QCPGraph* addLine(std::size_t trial, const QColor& colour, double width);

  std::shared_ptr<const SweepView> m_view;
  QCPTextElement* m_heading;
  QCPGraph* m_pruned = nullptr;
  QCPGraph* m_rungs = nullptr;
  QCPGraph* m_promoted = nullptr;
};

}  // namespace traindeck
