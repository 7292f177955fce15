// The bar's scale is max(device memory, total) so an overflow shows past the device's mark;
// colours are fixed per kind of memory (semantic), everything else comes from the palette.
#include "memory_bar.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

namespace traindeck {

namespace {
QString bytesText(std::int64_t bytes) {
  return QString::fromStdString(formatBytes(bytes));
}
}  // namespace

MemoryBar::MemoryBar(QWidget* parent) : QWidget(parent) {
  setObjectName("memoryBar");
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void MemoryBar::setMemory(const MemoryBreakdown& m, std::int64_t available) {
  m_segments = {{tr("Weights"), m.weights, QColor(0x3b, 0x82, 0xc4)},
                {tr("Gradients"), m.gradients, QColor(0x2a, 0xa1, 0x98)},
                {tr("Optimizer"), m.optimizer, QColor(0x8e, 0x6b, 0xc9)},
                {tr("Activations"), m.activations, QColor(0xe0, 0x8a, 0x2e)},
                {tr("Other"), m.mixedPrecision + m.overhead, QColor(0x8a, 0x8f, 0x98)}};
  m_available = available;
  setToolTip({});
  update();
}

QSize MemoryBar::sizeHint() const {
  const QFontMetrics fm(font());
  return {fm.horizontalAdvance(QLatin1Char('x')) * 60, fm.height() * 4};
}

QSize MemoryBar::minimumSizeHint() const {
  const QFontMetrics fm(font());
  return {fm.horizontalAdvance(QLatin1Char('x')) * 20, fm.height() * 4};
}

QRect MemoryBar::barRect() const {
  const QFontMetrics fm(font());
  return QRect(1, 1, width() - 2, fm.height() + fm.height() / 2);
}

QList<QRect> MemoryBar::segmentRects() const {
  QList<QRect> out;
  std::int64_t total = 0;
  for (const Segment& s : m_segments) total += s.bytes;
  const double scale = std::max<std::int64_t>({total, m_available, 1});
  const QRect bar = barRect();
  double x = bar.left();
  for (const Segment& s : m_segments) {
    const double w = bar.width() * (static_cast<double>(s.bytes) / scale);
    out << QRect(QPoint(static_cast<int>(x), bar.top()), QPoint(static_cast<int>(x + w) - 1, bar.bottom()));
    x += w;
  }
  return out;
}

void MemoryBar::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, false);
  const QRect bar = barRect();
  p.fillRect(bar, palette().color(QPalette::Base));
  const QList<QRect> rects = segmentRects();
  for (int i = 0; i < rects.size(); ++i)
    if (rects[i].width() > 0) p.fillRect(rects[i], m_segments[i].color);
  p.setPen(palette().color(QPalette::Mid));
  p.drawRect(bar.adjusted(0, 0, -1, -1));

  std::int64_t total = 0;
  for (const Segment& s : m_segments) total += s.bytes;
  if (m_available > 0 && total > m_available) {  // mark where the device's memory ends
    const int x = bar.left() + static_cast<int>(bar.width() * (static_cast<double>(m_available) / total));
    p.setPen(QPen(palette().color(QPalette::WindowText), 2, Qt::DashLine));
    p.drawLine(x, bar.top() - 1, x, bar.bottom() + 1);
  }

  // Legend: a swatch and "Name 1.2 GiB" per segment, wrapping onto more lines as needed.
  const QFontMetrics fm(font());
  const int swatch = fm.ascent() * 3 / 4;
  int x = bar.left(), y = bar.bottom() + fm.height() / 2;
  p.setPen(palette().color(QPalette::WindowText));
  for (const Segment& s : m_segments) {
    const QString text = s.name + " " + bytesText(s.bytes);
    const int w = swatch + fm.horizontalAdvance(QLatin1Char(' ')) + fm.horizontalAdvance(text);
    if (x > bar.left() && x + w > bar.right()) {
      x = bar.left();
      y += fm.height();
    }
    p.fillRect(QRect(x, y + (fm.height() - swatch) / 2, swatch, swatch), s.color);
    p.drawText(QRect(x + swatch + fm.horizontalAdvance(QLatin1Char(' ')), y, w, fm.height()),
               Qt::AlignLeft | Qt::AlignVCenter, text);
    x += w + fm.horizontalAdvance(QStringLiteral("   "));
  }
}

bool MemoryBar::event(QEvent* event) {
  if (event->type() != QEvent::ToolTip) return QWidget::event(event);
  auto* help = static_cast<QHelpEvent*>(event);
  const QList<QRect> rects = segmentRects();
  for (int i = 0; i < rects.size(); ++i) {
    if (!rects[i].contains(help->pos())) continue;
    QToolTip::showText(help->globalPos(), m_segments[i].name + ": " + bytesText(m_segments[i].bytes), this, rects[i]);
    return true;
  }
  std::int64_t total = 0;
  for (const Segment& s : m_segments) total += s.bytes;
  QToolTip::showText(help->globalPos(), tr("%1 of %2 per rank").arg(bytesText(total), bytesText(m_available)), this);
  return true;
}

}  // namespace traindeck
