// Keys under window/ and runList/; a value that is missing or no longer fits (a column past the
// list's end) leaves the default in place.
#include "window_state.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QMainWindow>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>

#include "run_list_panel.h"
#include "runlog/run_paths.h"
#include "runs/imported_runs.h"
#include "runs/run_list_model.h"

namespace traindeck {

namespace {
bool windowStateHasRun(const QString& dir) {
  return !dir.isEmpty() && QFileInfo::exists(dir + '/' + run_file::kRunJson);
}

QString windowStateTitleOf(const QTableView* table, int column) {
  return table->model()->headerData(column, Qt::Horizontal).toString();
}

// The column with that title now, or -1.
int windowStateColumnTitled(const QTableView* table, const QString& title) {
  if (title.isEmpty()) return -1;
  for (int column = 0; column < table->model()->columnCount(); ++column)
    if (windowStateTitleOf(table, column) == title) return column;
  return -1;
}

// Compare also holds other tools' runs, by their address.
bool windowStateCanCompare(const QString& address) {
  return windowStateHasRun(address) || (!address.isEmpty() && importedRunSource(address).has_value());
}
}  // namespace

void WindowState::restoreLayout(QSettings& settings) const {
  m_parts.window->restoreGeometry(settings.value("window/geometry").toByteArray());
  m_parts.window->restoreState(settings.value("window/state").toByteArray());
  if (!m_parts.splitter->restoreState(settings.value("window/splitter").toByteArray()))
    m_parts.splitter->setSizes({260, 1000});
  QTableView* table = m_parts.runList->table();
  if (settings.contains("runList/hiddenColumns")) {
    QList<int> hidden;
    for (const QString& title : settings.value("runList/hiddenColumns").toStringList())
      if (const int column = windowStateColumnTitled(table, title); column >= 0) hidden << column;
    m_parts.runList->setHiddenColumns(hidden);
  }
  const int sortColumn = windowStateColumnTitled(table, settings.value("runList/sortColumn").toString());
  if (sortColumn >= 0)
    table->sortByColumn(sortColumn, settings.value("runList/sortOrder").toInt() == Qt::AscendingOrder
                                        ? Qt::AscendingOrder
                                        : Qt::DescendingOrder);
}

void WindowState::reopenFolders(QSettings& settings) const {
  m_parts.runList->runs()->reopenFolders(settings.value("runList/openedFolders").toStringList());
}

WindowState::Shown WindowState::lastShown(QSettings& settings) {
  Shown shown;
  if (const QString run = settings.value("window/shownRun").toString(); windowStateHasRun(run)) shown.run = run;
  for (const QString& dir : settings.value("window/comparedRuns").toStringList())
    if (windowStateCanCompare(dir)) shown.compared << dir;
  shown.page = settings.value("window/page", 0).toInt();
  return shown;
}

void WindowState::save(QSettings& settings, const QString& shownRun, const QStringList& comparedRuns) const {
  settings.setValue("window/geometry", m_parts.window->saveGeometry());
  settings.setValue("window/state", m_parts.window->saveState());
  settings.setValue("window/splitter", m_parts.splitter->saveState());
  settings.setValue("window/page", m_parts.pages->currentIndex());
  settings.setValue("window/shownRun", shownRun);
  settings.setValue("window/comparedRuns", comparedRuns);
  // Columns by their titles: a column added in a later version (or a config key's column that
  // moves) does not shift what was hidden or sorted.
  const QTableView* table = m_parts.runList->table();
  QStringList hidden;
  for (int column : m_parts.runList->hiddenColumns()) hidden << windowStateTitleOf(table, column);
  settings.setValue("runList/hiddenColumns", hidden);
  const QHeaderView* header = table->horizontalHeader();
  settings.setValue("runList/sortColumn", windowStateTitleOf(table, header->sortIndicatorSection()));
  settings.setValue("runList/sortOrder", static_cast<int>(header->sortIndicatorOrder()));
  settings.setValue("runList/openedFolders", m_parts.runList->runs()->openedFolders());
}

}  // namespace traindeck
