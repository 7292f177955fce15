#include "sweep_hosts_picker.h"

#include <QHeaderView>
#include <QSpinBox>

namespace traindeck {

namespace {
constexpr int kMaxSlots = 64;
}

SweepHostsPicker::SweepHostsPicker(QWidget* parent) : QTableWidget(0, 2, parent) {
  setObjectName("sweepHosts");
  setHorizontalHeaderLabels({tr("Also on"), tr("Trials at once")});
  horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  verticalHeader()->hide();
  setSelectionMode(QAbstractItemView::NoSelection);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setToolTip(
      tr("Saved SSH hosts (File > Hosts…) that take trials too, and how many at once each: several on "
         "one host share its GPUs, or its cores"));
}

void SweepHostsPicker::setHosts(const QList<HostEntry>& hosts) {
  const QMap<QString, int> before = chosen();
  setRowCount(0);
  for (const HostEntry& host : hosts) {
    const int row = rowCount();
    insertRow(row);
    auto* name = new QTableWidgetItem(host.name);
    name->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    name->setCheckState(before.contains(host.name) ? Qt::Checked : Qt::Unchecked);
    name->setToolTip(host.spec);
    setItem(row, 0, name);
    auto* count = new QSpinBox(this);
    count->setRange(1, kMaxSlots);
    count->setValue(before.value(host.name, 1));
    count->setObjectName("sweepHostSlots");
    setCellWidget(row, 1, count);
  }
  setVisible(!hosts.isEmpty());
}

QMap<QString, int> SweepHostsPicker::chosen() const {
  QMap<QString, int> out;
  for (int row = 0; row < rowCount(); ++row)
    if (item(row, 0)->checkState() == Qt::Checked)
      out.insert(item(row, 0)->text(), static_cast<QSpinBox*>(cellWidget(row, 1))->value());
  return out;
}

bool SweepHostsPicker::choose(const QString& name, bool ticked, int slotCount) {
  for (int row = 0; row < rowCount(); ++row) {
    if (item(row, 0)->text() != name) continue;
    item(row, 0)->setCheckState(ticked ? Qt::Checked : Qt::Unchecked);
    static_cast<QSpinBox*>(cellWidget(row, 1))->setValue(slotCount);
    return true;
  }
  return false;
}

}  // namespace traindeck
