// Columns as wide as their contents, up to a width: a long run name is elided (whole in its
// tooltip) and the columns after it stay in view.
#pragma once

class QTableView;

namespace traindeck {

void fitColumnsToContents(QTableView* table, int maxChars);

}  // namespace traindeck
