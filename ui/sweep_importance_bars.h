// Parameter importance as horizontal bars, one per swept parameter: the share of the metric's
// variance that the parameter's value explains on its own (core/sweep/param_importance.h), over
// the trials shown. "?" where it cannot tell (too few trials, or a metric that does not vary).
#pragma once

#include <QStringList>
#include <QWidget>
#include <vector>

namespace traindeck {

class SweepImportanceBars : public QWidget {
  Q_OBJECT
 public:
  explicit SweepImportanceBars(QWidget* parent = nullptr);
  // One fraction (0..1, or NaN) per name; `basis`: what was compared ("at rung 0 (20.5k tokens),
  // 16 trials"), shown under the heading.
  void setImportance(const QStringList& names, const std::vector<double>& fractions, const QString& basis);
  const QString& basis() const { return m_basis; }
  const std::vector<double>& fractions() const { return m_fractions; }

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return {180, 80}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QStringList m_names;
  std::vector<double> m_fractions;
  QString m_basis;
};

}  // namespace traindeck
