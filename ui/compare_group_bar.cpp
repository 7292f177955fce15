// The keys field holds config keys (comma-separated) or the pattern, by the kind chosen.
#include "compare_group_bar.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>

namespace traindeck {

CompareGroupBar::CompareGroupBar(QWidget* parent) : QWidget(parent) {
  setObjectName("compareGroupBar");
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(new QLabel(tr("Group by:"), this));
  m_by = new QComboBox(this);
  m_by->setObjectName("compareGroupBy");
  m_by->addItems({tr("Nothing (a line per run)"), tr("Config keys"), tr("Every config key but"), tr("Source (tool)"),
                  tr("Name pattern")});
  row->addWidget(m_by);
  m_keys = new QLineEdit(this);
  m_keys->setObjectName("compareGroupKeys");
  m_keys->setMinimumWidth(220);
  row->addWidget(m_keys, 1);
  row->addWidget(new QLabel(tr("Line:"), this));
  m_center = new QComboBox(this);
  m_center->setObjectName("compareGroupCenter");
  m_center->addItems({tr("Mean"), tr("Median")});
  row->addWidget(m_center);
  row->addWidget(new QLabel(tr("Band:"), this));
  m_band = new QComboBox(this);
  m_band->setObjectName("compareGroupBand");
  m_band->addItems({tr("Min–max"), tr("±1 std"), tr("95% interval")});
  row->addWidget(m_band);
  m_members = new QCheckBox(tr("Members"), this);
  m_members->setObjectName("compareGroupMembers");
  m_members->setToolTip(tr("Draw each group's runs too, thin, behind its line."));
  row->addWidget(m_members);
  row->addStretch(1);
  const auto changed = [this] {
    const CompareGrouping now = grouping();
    setGrouping(now);  // the field's hint and what is enabled follow the kind
    emit groupingChanged(now);
  };
  connect(m_by, qOverload<int>(&QComboBox::activated), this, changed);
  connect(m_keys, &QLineEdit::editingFinished, this, changed);
  connect(m_center, qOverload<int>(&QComboBox::activated), this, changed);
  connect(m_band, qOverload<int>(&QComboBox::activated), this, changed);
  connect(m_members, &QCheckBox::toggled, this, changed);
  setGrouping({});
}

CompareGrouping CompareGroupBar::grouping() const {
  CompareGrouping grouping;
  grouping.by.kind = static_cast<GroupBy::Kind>(m_by->currentIndex());
  const QString text = m_keys->text().trimmed();
  if (grouping.by.kind == GroupBy::Kind::NamePattern) {
    grouping.by.pattern = text;
  } else {
    for (const QString& key : text.split(',', Qt::SkipEmptyParts))
      if (!key.trimmed().isEmpty()) grouping.by.keys << key.trimmed();
  }
  grouping.center = static_cast<GroupCenter>(m_center->currentIndex());
  grouping.band = static_cast<GroupBand>(m_band->currentIndex());
  grouping.showMembers = m_members->isChecked();
  return grouping;
}

void CompareGroupBar::setGrouping(const CompareGrouping& grouping) {
  const QSignalBlocker blockers[] = {QSignalBlocker(m_by), QSignalBlocker(m_keys), QSignalBlocker(m_center),
                                     QSignalBlocker(m_band), QSignalBlocker(m_members)};
  const GroupBy::Kind kind = grouping.by.kind;
  m_by->setCurrentIndex(static_cast<int>(kind));
  const QString text =
      kind == GroupBy::Kind::NamePattern ? grouping.by.pattern : grouping.by.keys.join(QStringLiteral(", "));
  if (m_keys->text().trimmed() != text) m_keys->setText(text);
  static const char* const kPlaceholders[] = {"", QT_TR_NOOP("optimizer.lr, model.layers"), QT_TR_NOOP("seed"), "",
                                              QT_TR_NOOP("^(.*)-seed\\d+$")};
  m_keys->setPlaceholderText(tr(kPlaceholders[static_cast<int>(kind)]));
  m_keys->setEnabled(kind == GroupBy::Kind::ConfigKeys || kind == GroupBy::Kind::ConfigKeysExcept ||
                     kind == GroupBy::Kind::NamePattern);
  m_keys->setToolTip(kind == GroupBy::Kind::NamePattern
                         ? tr("A regular expression over the runs' names; its first group names the group.")
                         : tr("Config keys, separated by commas."));
  m_center->setCurrentIndex(static_cast<int>(grouping.center));
  m_band->setCurrentIndex(static_cast<int>(grouping.band));
  m_members->setChecked(grouping.showMembers);
  for (QWidget* w : {static_cast<QWidget*>(m_center), static_cast<QWidget*>(m_band), static_cast<QWidget*>(m_members)})
    w->setEnabled(grouping.active());
}

}  // namespace traindeck
