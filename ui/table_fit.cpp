#include "table_fit.h"

#include <QHeaderView>
#include <QTableView>

namespace traindeck {

void fitColumnsToContents(QTableView* table, int maxChars) {
  table->resizeColumnsToContents();
  const int widest = table->fontMetrics().averageCharWidth() * maxChars;
  for (int c = 0; c < table->model()->columnCount(); ++c)
    if (table->columnWidth(c) > widest) table->setColumnWidth(c, widest);
}

}  // namespace traindeck
