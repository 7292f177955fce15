// The Compare page's grouping controls: group by nothing, config keys, every key but some, the
// source or a name pattern; the line (mean or median), the band (min–max, ±1 std, 95% interval)
// and whether members are drawn. Says what the user set in groupingChanged.
#pragma once

#include <QWidget>

#include "compare_lines.h"

class QCheckBox;
class QComboBox;
class QLineEdit;

namespace traindeck {

class CompareGroupBar : public QWidget {
  Q_OBJECT
 public:
  explicit CompareGroupBar(QWidget* parent = nullptr);

  // Shows `grouping` (without emitting groupingChanged).
  void setGrouping(const CompareGrouping& grouping);
  CompareGrouping grouping() const;

 signals:
  void groupingChanged(const traindeck::CompareGrouping& grouping);

 private:
  QComboBox* m_by;
  QLineEdit* m_keys;
  QComboBox* m_center;
  QComboBox* m_band;
  QCheckBox* m_members;
};

}  // namespace traindeck
