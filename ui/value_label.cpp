// Wrapped, so that a long value takes more lines in its form row instead of widening the panel.
#include "value_label.h"

#include <QLabel>

namespace traindeck {

QLabel* valueLabel(const QString& name, QWidget* parent) {
  auto* label = new QLabel(parent);
  label->setObjectName(name);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setWordWrap(true);
  return label;
}

}  // namespace traindeck
