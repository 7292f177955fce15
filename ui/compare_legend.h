// The Compare page's legend beside the charts: an entry per run (or per group when grouped) in
// its colour, with what the colour stands for. Hovering an entry highlights its lines on every
// chart; its context menu picks its runs' colour by hand.
#pragma once

#include <QListWidget>

#include "compare_chart.h"
#include "runs/run_groups.h"

namespace traindeck {

class Comparison;

class CompareLegend : public QListWidget {
  Q_OBJECT
 public:
  explicit CompareLegend(QWidget* parent = nullptr);

  // `groups`: the page's groups when grouped, else null (an entry per run).
  void refresh(const Comparison& comparison, const QVector<RunGroup>* groups);

 signals:
  void lineHovered(const traindeck::LineOwner& owner);  // none: over no entry, or left
  void colourMenuRequested(const QVector<int>& runs, const QPoint& globalPos);

 protected:
  void contextMenuEvent(QContextMenuEvent* event) override;
};

}  // namespace traindeck
