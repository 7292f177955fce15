// A stacked horizontal bar of one rank's memory against what its device has: weights,
// gradients, optimizer state, activations and the rest, drawn with QPainter, with a legend
// below and a tooltip per segment.
#pragma once

#include <QColor>
#include <QList>
#include <QString>
#include <QWidget>

#include "config/planner.h"

namespace traindeck {

class MemoryBar : public QWidget {
  Q_OBJECT
 public:
  struct Segment {
    QString name;
    std::int64_t bytes = 0;
    QColor color;
  };

  explicit MemoryBar(QWidget* parent = nullptr);

  void setMemory(const MemoryBreakdown& memory, std::int64_t available);
  const QList<Segment>& segments() const { return m_segments; }
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  QRect barRect() const;
  QList<QRect> segmentRects() const;  // one per segment, in the bar

  QList<Segment> m_segments;
  std::int64_t m_available = 0;
};

}  // namespace traindeck
