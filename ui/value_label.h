// A label that shows a value the user may want to copy: named (tests find it so), selectable
// with the mouse and wrapped. The plan's and the sweep summary's rows.
#pragma once

#include <QString>

class QLabel;
class QWidget;

namespace traindeck {

QLabel* valueLabel(const QString& name, QWidget* parent);

}  // namespace traindeck
