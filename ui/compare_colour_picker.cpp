// The runs are remembered by address, not index: the comparison may change while the dialog is open.
#include "compare_colour_picker.h"

#include <QColorDialog>
#include <QMenu>

#include "runs/comparison.h"

namespace traindeck {

namespace {

QStringList runAddresses(const Comparison& comparison, const QVector<int>& runs) {
  QStringList dirs;
  for (int run : runs)
    if (run >= 0 && run < comparison.size()) dirs << comparison.run(run).runDir;
  return dirs;
}

}  // namespace

void showRunColourMenu(QWidget* parent, const QPoint& globalPos, Comparison& comparison, const QVector<int>& runs) {
  if (runs.isEmpty()) return;
  QMenu menu(parent);
  menu.addAction(QObject::tr("Pick colour…"), parent,
                 [parent, &comparison, runs] { pickRunColour(parent, comparison, runs); });
  const QStringList dirs = runAddresses(comparison, runs);
  QAction* own = menu.addAction(QObject::tr("Own colour again"), parent, [&comparison, dirs] {
    for (const QString& dir : dirs) comparison.setHandColour(dir, {});
  });
  own->setEnabled(std::any_of(dirs.begin(), dirs.end(),
                              [&comparison](const QString& dir) { return comparison.handColour(dir).isValid(); }));
  menu.exec(globalPos);
}

QColorDialog* pickRunColour(QWidget* parent, Comparison& comparison, const QVector<int>& runs) {
  const QStringList dirs = runAddresses(comparison, runs);
  auto* dialog = new QColorDialog(runs.isEmpty() ? QColor() : comparison.runColour(runs.front()), parent);
  dialog->setObjectName("compareColourDialog");
  dialog->setWindowTitle(QObject::tr("Colour of %n run(s)", nullptr, static_cast<int>(dirs.size())));
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  // The comparison outlives the page's dialogs: the window owns both.
  QObject::connect(dialog, &QColorDialog::colorSelected, &comparison, [&comparison, dirs](const QColor& colour) {
    for (const QString& dir : dirs) comparison.setHandColour(dir, colour);
    comparison.setColourBy({.kind = ColourBy::Kind::ByHand, .key = {}, .statistic = ColourBy::Statistic::Last});
  });
  dialog->open();
  return dialog;
}

}  // namespace traindeck
