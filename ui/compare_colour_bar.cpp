// Choosing a key or a metric picks its first choice, so that a colouring never waits for one.
#include "compare_colour_bar.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLinearGradient>
#include <QPainter>

namespace traindeck {

namespace {

QPixmap rampPixmap() {
  QPixmap pixmap(64, 10);
  QPainter painter(&pixmap);
  QLinearGradient gradient(0, 0, pixmap.width(), 0);
  for (int i = 0; i <= 10; ++i) gradient.setColorAt(i / 10.0, rampColour(i / 10.0));
  painter.fillRect(pixmap.rect(), gradient);
  return pixmap;
}

}  // namespace

CompareColourBar::CompareColourBar(QWidget* parent) : QWidget(parent) {
  setObjectName("compareColourBar");
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(new QLabel(tr("Colour:"), this));
  m_kind = new QComboBox(this);
  m_kind->setObjectName("compareColourBy");
  m_kind->addItems({tr("Run"), tr("Config key"), tr("Metric"), tr("By hand")});
  m_kind->setToolTip(
      tr("Run: each run its own colour. Config key: runs with the same value share a colour. "
         "Metric: a ramp over each run's value. By hand: right-click a run in the legend or the "
         "summary to pick its colour."));
  row->addWidget(m_kind);
  m_key = new QComboBox(this);
  m_key->setObjectName("compareColourKey");
  m_key->setEditable(true);
  m_key->setInsertPolicy(QComboBox::NoInsert);
  m_key->setMinimumContentsLength(14);
  m_key->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  row->addWidget(m_key);
  m_statistic = new QComboBox(this);
  m_statistic->setObjectName("compareColourStatistic");
  m_statistic->addItems({tr("last"), tr("min")});
  m_statistic->setToolTip(tr("Which value of each run the ramp places: its last or its smallest."));
  row->addWidget(m_statistic);
  m_ramp = new QLabel(this);
  m_ramp->setPixmap(rampPixmap());
  row->addWidget(m_ramp);
  m_range = new QLabel(this);
  m_range->setObjectName("compareColourRange");
  row->addWidget(m_range);
  row->addStretch(1);

  const auto changed = [this] { emit colourByChanged(colourBy()); };
  connect(m_kind, qOverload<int>(&QComboBox::activated), this, [this, changed] {
    refreshKeys();
    changed();
  });
  connect(m_key, qOverload<int>(&QComboBox::activated), this, changed);
  connect(m_key->lineEdit(), &QLineEdit::editingFinished, this, changed);  // a key typed in
  connect(m_statistic, qOverload<int>(&QComboBox::activated), this, changed);
  showColouring({}, {});
}

void CompareColourBar::setChoiceSource(ChoiceSource source) {
  m_choices = std::move(source);
  refreshChoices();
}

void CompareColourBar::refreshChoices() {
  const QString key = m_key->currentText();
  refreshKeys();
  const QSignalBlocker block(m_key);
  if (!key.isEmpty()) m_key->setCurrentText(key);
}

void CompareColourBar::refreshKeys() {
  const QSignalBlocker block(m_key);
  const auto kind = static_cast<ColourBy::Kind>(m_kind->currentIndex());
  m_key->clear();
  if (m_choices && (kind == ColourBy::Kind::ConfigKey || kind == ColourBy::Kind::Metric))
    m_key->addItems(m_choices(kind));
  m_key->setCurrentIndex(m_key->count() > 0 ? 0 : -1);
}

ColourBy CompareColourBar::colourBy() const {
  const auto kind = static_cast<ColourBy::Kind>(m_kind->currentIndex());
  const bool keyed = kind == ColourBy::Kind::ConfigKey || kind == ColourBy::Kind::Metric;
  return {.kind = kind,
          .key = keyed ? m_key->currentText().trimmed() : QString(),
          .statistic = static_cast<ColourBy::Statistic>(m_statistic->currentIndex())};
}

void CompareColourBar::showColouring(const ColourBy& by, const RunColours& colours) {
  const QSignalBlocker blockKind(m_kind), blockStatistic(m_statistic);
  if (m_kind->currentIndex() != static_cast<int>(by.kind)) {
    m_kind->setCurrentIndex(static_cast<int>(by.kind));
    refreshKeys();
  }
  if (!by.key.isEmpty() && m_key->currentText() != by.key) {
    const QSignalBlocker blockKey(m_key);
    m_key->setCurrentText(by.key);
  }
  m_statistic->setCurrentIndex(static_cast<int>(by.statistic));
  const bool keyed = by.kind == ColourBy::Kind::ConfigKey || by.kind == ColourBy::Kind::Metric;
  const bool metric = by.kind == ColourBy::Kind::Metric;
  m_key->setVisible(keyed);
  m_key->setToolTip(metric ? tr("The metric whose value colours each run (runs without it are grey).")
                           : tr("The config key whose value colours each run (runs without it are grey)."));
  m_statistic->setVisible(metric);
  m_ramp->setVisible(metric);
  m_range->setVisible(metric);
  m_range->setText(!metric ? QString()
                   : std::isnan(colours.low)
                       ? tr("no run has %1").arg(by.key)
                       : QStringLiteral("%1 %2 %3 … %4")
                             .arg(by.key, statisticName(by.statistic), QString::number(colours.low, 'g', 4),
                                  QString::number(colours.high, 'g', 4)));
  if (metric && !std::isnan(colours.low))
    m_ramp->setToolTip(tr("From %1 (violet) to %2 (yellow); runs without %3 are grey")
                           .arg(QString::number(colours.low, 'g', 4), QString::number(colours.high, 'g', 4), by.key));
}

}  // namespace traindeck
