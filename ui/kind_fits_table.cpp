// Rows are rebuilt on every plan (four at most); the height follows them, so the table never
// scrolls inside the plan panel.
#include "kind_fits_table.h"

#include <QHeaderView>

#include "config/enum_names.h"

namespace traindeck {

KindFitsTable::KindFitsTable(QWidget* parent) : QTableWidget(0, 4, parent) {
  setObjectName("plan.kinds");
  setHorizontalHeaderLabels({tr("Kind"), tr("Per rank"), tr("Fits?"), tr("Max micro_batch")});
  setToolTip(tr("The same job under each strategy kind its ranks allow, planned on the chosen device."));
  verticalHeader()->hide();
  // Every column as wide as its text, the verdict's taking what is left: fits the panel, never scrolls.
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
  setWordWrap(false);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setSelectionMode(QAbstractItemView::NoSelection);
  setFocusPolicy(Qt::NoFocus);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

void KindFitsTable::setFits(const std::vector<KindFit>& fits, StrategyKind chosen) {
  setRowCount(static_cast<int>(fits.size()));
  for (int row = 0; row < rowCount(); ++row) {
    const KindFit& fit = fits[static_cast<std::size_t>(row)];
    const QStringList cells = {
        QString::fromUtf8(toString(fit.kind).data(), static_cast<qsizetype>(toString(fit.kind).size())),
        QString::fromStdString(formatBytes(fit.perRankBytes)), fit.fits ? tr("fits") : tr("does not fit"),
        fit.largestMicroBatch > 0 ? QString::number(fit.largestMicroBatch) : tr("none")};
    for (int column = 0; column < cells.size(); ++column) {
      auto* item = new QTableWidgetItem(cells[column]);
      if (column > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (column == 2) item->setForeground(fit.fits ? QColor("#1e8449") : QColor("#c0392b"));
      if (fit.kind == chosen) {
        QFont bold = item->font();
        bold.setBold(true);
        item->setFont(bold);
        item->setBackground(palette().alternateBase());
      }
      setItem(row, column, item);
    }
  }
  resizeRowsToContents();
  int height = horizontalHeader()->height() + 2 * frameWidth();
  for (int row = 0; row < rowCount(); ++row) height += rowHeight(row);
  setFixedHeight(height);
}

QStringList KindFitsTable::rowTexts() const {
  QStringList rows;
  for (int row = 0; row < rowCount(); ++row) {
    QStringList cells;
    for (int column = 0; column < columnCount(); ++column) cells << item(row, column)->text();
    rows << cells.join(QStringLiteral(" | "));
  }
  return rows;
}

}  // namespace traindeck
