// The run list beside the pages, like PlotJuggler's CurveListPanel: app/runs' RunListModel
// through a filter (name or id, status) in a sortable table, newest first. It says which run was
// picked and which are selected; what a pick does is the window's. Its header's menu shows or
// hides columns and adds config keys and metrics by name as columns (both kept in QSettings).
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>

class QMenu;
class QTableView;

namespace traindeck {

class RunFilterModel;
class RunListModel;

class RunListPanel : public QWidget {
  Q_OBJECT
 public:
  static constexpr const char* kConfigColumnsKey = "runList/configColumns";
  static constexpr const char* kMetricColumnsKey = "runList/metricColumns";  // their titles
  static constexpr int kMaxColumnChars = 28;

  RunListPanel(RunListModel* runs, const QString& runsRoot, QWidget* parent = nullptr);

  QTableView* table() const { return m_table; }
  RunListModel* runs() const { return m_runs; }
  QStringList selectedRunDirs() const;
  // Selects this run's row alone (one not listed yet: when its row comes); with none, no row stays selected.
  void selectRun(const QString& runDir);
  // The header's menu: columns to show or hide, config keys as columns, and "Metric columns": each
  // metric name the summary index has seen, checked when it has columns. The caller owns it.
  QMenu* columnMenu();
  void showConfigColumns(const QStringList& keys);
  // Adds the metric's columns (last, best, best step) or removes every column of it.
  void showMetricColumns(const QString& metric, bool shown);
  // The list's own columns that are hidden, and its sort, as WindowState keeps them.
  QList<int> hiddenColumns() const;
  void setHiddenColumns(const QList<int>& columns);

 signals:
  void runPicked(const QString& runDir);  // the current row changed to this run's
  void selectionChanged();
  void menuRequested(const QStringList& runDirs, const QPoint& globalPos);  // a right click on rows

 private:
  // Each column as wide as its contents up to kMaxColumnChars: a long name is elided (whole in its
  // tooltip) and the columns after it stay in view.
  void fitColumns();
  // The model's extra columns change (a reset): hidden columns and the selection are set again.
  void changeExtraColumns(const std::function<void()>& change);
  QMenu* metricColumnsMenu(QWidget* parent);

  RunListModel* m_runs;
  RunFilterModel* m_filter;
  QTableView* m_table = nullptr;
  QString m_selected;  // the run selectRun was last told
  bool m_selectWhenListed = false;  // m_selected is not listed yet: select it when its row comes
};

}  // namespace traindeck
