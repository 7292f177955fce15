// Picking compared runs' colours by hand: the menu on a legend entry or a summary row, and the
// colour dialog it opens. A colour picked is kept per run address (Comparison::setHandColour)
// and the runs are coloured by hand from then on.
#pragma once

#include <QVector>

class QColorDialog;
class QPoint;
class QWidget;

namespace traindeck {

class Comparison;

// "Pick colour…" and "Own colour again" for these runs, at globalPos.
void showRunColourMenu(QWidget* parent, const QPoint& globalPos, Comparison& comparison, const QVector<int>& runs);
// Opens a colour dialog for these runs, not modal (the user, or a test, answers it later); the
// dialog deletes itself when closed.
QColorDialog* pickRunColour(QWidget* parent, Comparison& comparison, const QVector<int>& runs);

}  // namespace traindeck
