// Each entry keeps its runs and its line owner in item data, so hover and menu need no lookup.
#include "compare_legend.h"

#include <QContextMenuEvent>

#include "compare_lines.h"
#include "item_hover.h"
#include "runs/comparison.h"

namespace traindeck {

namespace {

constexpr int kRunsRole = Qt::UserRole;
constexpr int kOwnerRunRole = Qt::UserRole + 1;
constexpr int kOwnerGroupRole = Qt::UserRole + 2;

}  // namespace

CompareLegend::CompareLegend(QWidget* parent) : QListWidget(parent) {
  setObjectName("compareLegend");
  setSelectionMode(QAbstractItemView::NoSelection);
  setToolTip(
      tr("Each run's (or group's) colour, the same in every chart. Hover to highlight its lines; "
         "right-click to pick its colour."));
  followItemHover(this, [this](const QModelIndex& index) {
    emit lineHovered(index.isValid() ? LineOwner{.run = index.data(kOwnerRunRole).toInt(),
                                                 .group = index.data(kOwnerGroupRole).toInt()}
                                     : LineOwner{});
  });
}

void CompareLegend::refresh(const Comparison& comparison, const QVector<RunGroup>* groups) {
  clear();
  const auto add = [this](const QColor& color, const QString& text, const QString& tip, const QVector<int>& runs,
                          const LineOwner& owner) {
    QPixmap swatch(14, 14);
    swatch.fill(color);
    auto* item = new QListWidgetItem(QIcon(swatch), text);
    item->setToolTip(tip);
    item->setData(kRunsRole, QVariant::fromValue(QList<int>(runs.begin(), runs.end())));
    item->setData(kOwnerRunRole, owner.run);
    item->setData(kOwnerGroupRole, owner.group);
    addItem(item);
  };
  if (groups) {
    for (int g = 0; g < groups->size(); ++g) {
      const RunGroup& group = (*groups)[g];
      QStringList members;
      for (int run : group.members) members << comparison.run(run).label;
      add(compareGroupColour(comparison, group, g),
          QStringLiteral("%1  (%2)").arg(group.name).arg(group.members.size()), members.join('\n'), group.members,
          {.run = -1, .group = g});
    }
    return;
  }
  for (int i = 0; i < comparison.size(); ++i) {
    const ComparedRun& run = comparison.run(i);
    // The value the colour stands for (the colour bar names its key) stands where the status would.
    const QString note = comparison.colourNote(i), value = comparison.colourValue(i);
    const QString aside = !value.isEmpty() ? value : run.source.isEmpty() ? run.summary.statusName() : run.source;
    add(comparison.runColour(i), QStringLiteral("%1  (%2)").arg(run.label, aside),
        note.isEmpty() ? run.runDir : run.runDir + '\n' + note, {i}, {.run = i, .group = -1});
  }
}

void CompareLegend::contextMenuEvent(QContextMenuEvent* event) {
  const QListWidgetItem* item = itemAt(event->pos());
  if (!item) return;
  const QList<int> runs = item->data(kRunsRole).value<QList<int>>();
  emit colourMenuRequested(QVector<int>(runs.begin(), runs.end()), event->globalPos());
}

}  // namespace traindeck
