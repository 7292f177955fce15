#include "sweep_importance_bars.h"

#include <QPainter>
#include <cmath>

namespace traindeck {

namespace {
constexpr int kRow = 22;
}

SweepImportanceBars::SweepImportanceBars(QWidget* parent) : QWidget(parent) {
  setObjectName("sweepImportance");
  setToolTip(
      tr("Main-effect importance: trials are grouped by the parameter's value (a list) or into up to 5 bins of "
         "equal count (a range), and the bar is the share of the metric's variance between the groups' means, "
         "corrected for chance (epsilon squared). Trials are compared at one rung, the highest that half of them "
         "reached, or by their latest metric in a sweep without rungs. It ignores what parameters do together. See "
         "docs/sweeps.md, \"The Sweep page\"."));
}

void SweepImportanceBars::setImportance(const QStringList& names, const std::vector<double>& fractions,
                                        const QString& basis) {
  m_names = names;
  m_fractions = fractions;
  m_basis = basis;
  updateGeometry();
  update();
}

QSize SweepImportanceBars::sizeHint() const {
  return {240, kRow * (static_cast<int>(m_names.size()) + 3)};
}

void SweepImportanceBars::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QColor text = palette().color(QPalette::Text);
  const QFontMetrics fm(font());
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(text);
  p.drawText(QRect(4, 0, width() - 8, kRow), Qt::AlignLeft | Qt::AlignVCenter, tr("Importance (main effect)"));
  p.setFont(font());
  p.drawText(QRect(4, kRow, width() - 8, kRow), Qt::AlignLeft | Qt::AlignVCenter,
             fm.elidedText(m_basis, Qt::ElideRight, width() - 8));
  const int nameWidth = std::min(width() / 3, 110), valueWidth = fm.horizontalAdvance("100%") + 6;
  for (qsizetype i = 0; i < m_names.size(); ++i) {
    const int y = kRow * static_cast<int>(i + 2);
    p.setPen(text);
    p.drawText(QRect(4, y, nameWidth - 6, kRow), Qt::AlignRight | Qt::AlignVCenter,
               fm.elidedText(m_names[i], Qt::ElideMiddle, nameWidth - 6));
    const double f = static_cast<std::size_t>(i) < m_fractions.size() ? m_fractions[static_cast<std::size_t>(i)] : NAN;
    const int barSpace = std::max(10, width() - nameWidth - valueWidth - 8);
    p.fillRect(QRect(nameWidth, y + 5, barSpace, kRow - 10), palette().color(QPalette::AlternateBase));
    if (std::isfinite(f))
      p.fillRect(QRect(nameWidth, y + 5, static_cast<int>(std::lround(f * barSpace)), kRow - 10),
                 QColor(0x34, 0x78, 0xc8));
    p.drawText(QRect(nameWidth + barSpace + 4, y, valueWidth, kRow), Qt::AlignLeft | Qt::AlignVCenter,
               std::isfinite(f) ? QString::number(std::lround(f * 100)) + "%" : QStringLiteral("?"));
  }
}

}  // namespace traindeck
