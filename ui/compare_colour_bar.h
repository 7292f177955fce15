// The Compare page's colouring controls, beside the Group-by bar: colour by run (each its own
// colour), by a config key (a colour per value), by a metric (a ramp over each run's last or
// smallest value, its range shown beside) or by hand. Says what the user set in colourByChanged.
#pragma once

#include <QWidget>
#include <functional>

#include "runs/run_colours.h"

class QComboBox;
class QLabel;

namespace traindeck {

class CompareColourBar : public QWidget {
  Q_OBJECT
 public:
  explicit CompareColourBar(QWidget* parent = nullptr);

  // What the key chooser offers for a kind (config keys, metric names), asked when a kind is
  // chosen and on refreshChoices (the runs changed).
  using ChoiceSource = std::function<QStringList(ColourBy::Kind)>;
  void setChoiceSource(ChoiceSource source);
  void refreshChoices();
  // Shows `by` and, colouring by a metric, the range of `colours` (without emitting).
  void showColouring(const ColourBy& by, const RunColours& colours);
  ColourBy colourBy() const;

 signals:
  void colourByChanged(const traindeck::ColourBy& by);

 private:
  void refreshKeys();  // the chooser's items for the kind shown, the first one current

  QComboBox* m_kind;
  QComboBox* m_key;
  QComboBox* m_statistic;
  QLabel* m_ramp;
  QLabel* m_range;
  ChoiceSource m_choices;
};

}  // namespace traindeck
