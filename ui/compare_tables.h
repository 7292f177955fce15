// The Compare page's tables, under its charts: the summary (sortable, CSV export; a double-click
// opens the run; hovering a row highlights the run on every chart; its context menu picks the
// run's colour) and the config diff (differing keys, or all of them). Views over the models
// that app/runs keeps for a Comparison.
#pragma once

#include <QTabWidget>

class QCheckBox;
class QTableView;

namespace traindeck {

class Comparison;
class ComparisonSummaryModel;
class ConfigDiffModel;

class CompareTables : public QTabWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxColumnChars = 40;  // a column wider (a long run name) is elided
  CompareTables(const Comparison* comparison, QWidget* parent = nullptr);

  ComparisonSummaryModel* summaryModel() const { return m_summary; }
  ConfigDiffModel* diffModel() const { return m_diff; }
  QTableView* summaryView() const { return m_summaryView; }
  QTableView* diffView() const { return m_diffView; }
  bool exportSummaryCsv(const QString& path);  // false (and a message box) when not written

 signals:
  void runActivated(const QString& runDir);
  void runHovered(int run);  // the comparison's index; -1: over no row, or left
  void colourMenuRequested(const QVector<int>& runs, const QPoint& globalPos);

 private:
  const Comparison* m_comparison;
  ComparisonSummaryModel* m_summary;
  ConfigDiffModel* m_diff;
  QTableView* m_summaryView;
  QTableView* m_diffView;
  QCheckBox* m_showAll;
};

}  // namespace traindeck
