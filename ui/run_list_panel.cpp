// Rows of the view are the filter's; every run directory it gives out is mapped back to the
// model's row first, so sorting and filtering never change which run a click means.
#include "run_list_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QTableView>
#include <QVBoxLayout>

#include "run_filter_model.h"
#include "runs/run_list_model.h"
#include "table_fit.h"

namespace traindeck {

RunListPanel::RunListPanel(RunListModel* runs, const QString& runsRoot, QWidget* parent)
    : QWidget(parent), m_runs(runs), m_filter(new RunFilterModel(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new QLabel(tr("<b>Runs</b>"), this));
  auto* filters = new QHBoxLayout;
  auto* filterText = new QLineEdit(this);
  filterText->setObjectName("runFilter");
  filterText->setPlaceholderText(tr("Filter by name or id"));
  filterText->setClearButtonEnabled(true);
  auto* filterStatus = new QComboBox(this);
  filterStatus->setObjectName("statusFilter");
  filterStatus->addItem(tr("every status"), QString());
  for (const char* status : {"running", "finished", "failed", "stopped", "killed", "requeued", "starting"})
    filterStatus->addItem(QString::fromLatin1(status), QString::fromLatin1(status));
  filters->addWidget(filterText, 1);
  filters->addWidget(filterStatus);
  layout->addLayout(filters);
  m_filter->setSourceModel(m_runs);
  connect(filterText, &QLineEdit::textChanged, m_filter, &RunFilterModel::setText);
  connect(filterStatus, &QComboBox::currentIndexChanged, this,
          [this, filterStatus] { m_filter->setStatus(filterStatus->currentData().toString()); });

  m_runs->setConfigColumns(QSettings().value(kConfigColumnsKey).toStringList());
  m_runs->setMetricColumns(metricColumnsFromTitles(QSettings().value(kMetricColumnsKey).toStringList()));
  m_table = new QTableView(this);  // after the filters: first in the focus chain, it would pick a run on show
  m_table->setObjectName("runList");
  m_table->setModel(m_filter);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(RunListModel::CreatedColumn, Qt::DescendingOrder);  // newest first
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setStretchLastSection(true);
  // Name, status, step, total, loss and where it runs; the id and path are in the window's run label.
  setHiddenColumns({RunListModel::IdColumn, RunListModel::CreatedColumn, RunListModel::PathColumn});
  m_table->setAlternatingRowColors(true);
  m_table->setToolTip(tr("Every run under %1, newest first. Select one to watch it; select several "
                         "(Ctrl- or Shift-click) to compare them.")
                          .arg(runsRoot));
  layout->addWidget(m_table, 1);

  m_table->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_table->horizontalHeader(), &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
    QMenu* menu = columnMenu();
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(m_table->horizontalHeader()->mapToGlobal(at));
  });
  m_table->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_table, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
    const QStringList dirs = selectedRunDirs();
    if (!dirs.isEmpty()) emit menuRequested(dirs, m_table->viewport()->mapToGlobal(at));
  });
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& at) {
    const int row = m_filter->mapToSource(at).row();
    if (row >= 0) emit runPicked(m_runs->runAt(row).path);
  });
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunListPanel::selectionChanged);
  connect(m_runs, &QAbstractItemModel::rowsInserted, this, &RunListPanel::fitColumns);
  connect(m_runs, &QAbstractItemModel::dataChanged, this, &RunListPanel::fitColumns);
  // The run shown is the one selected, also when its row comes after (a start); rows that come
  // while the user has picked runs for Compare leave that choice alone.
  connect(m_runs, &QAbstractItemModel::rowsInserted, this, [this] {
    if (m_selectWhenListed) selectRun(m_selected);
  });
}

QStringList RunListPanel::selectedRunDirs() const {
  QStringList dirs;
  for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
    dirs << m_runs->runAt(m_filter->mapToSource(index).row()).path;
  return dirs;
}

void RunListPanel::selectRun(const QString& runDir) {
  m_selected = runDir;
  m_selectWhenListed = false;
  if (runDir.isEmpty()) return;
  const int row = m_runs->rowOfPath(runDir);
  const QModelIndex at = row >= 0 ? m_filter->mapFromSource(m_runs->index(row, 0)) : QModelIndex();
  QItemSelectionModel* selection = m_table->selectionModel();
  if (!at.isValid()) {
    selection->clear();
    m_selectWhenListed = row < 0;  // a start: its row comes a moment later
    return;
  }
  // Alone: runs selected before (for Compare) are let go, also when this one is already current.
  const bool alone = selection->currentIndex().row() == at.row() && selection->selectedRows().size() == 1 &&
                     selection->isRowSelected(at.row());
  if (!alone) selection->setCurrentIndex(at, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

QMenu* RunListPanel::columnMenu() {
  // The list's own columns to show or hide, the config keys shown as columns, and one more.
  auto* menu = new QMenu(this);
  menu->setObjectName("columnMenu");
  for (int column = 0; column < m_runs->columnCount(); ++column) {
    const QString title = m_runs->headerData(column, Qt::Horizontal).toString();
    QAction* a = menu->addAction(title);
    a->setCheckable(true);
    a->setChecked(!m_table->isColumnHidden(column));
    a->setObjectName("column:" + title);
    connect(a, &QAction::toggled, this, [this, column](bool on) {
      // A config key's or a metric's column is removed, not hidden.
      if (column >= m_runs->firstMetricColumn() && !on) {
        QList<MetricColumn> columns = m_runs->metricColumns();
        columns.removeAt(column - m_runs->firstMetricColumn());
        return changeExtraColumns([&] { m_runs->setMetricColumns(columns); });
      }
      if (column >= RunListModel::ColumnCount && !on) {
        QStringList keys = m_runs->configColumns();
        keys.removeAt(column - RunListModel::ColumnCount);
        return showConfigColumns(keys);
      }
      m_table->setColumnHidden(column, !on);
    });
  }
  menu->addSeparator();
  menu->addMenu(metricColumnsMenu(menu));
  QAction* add = menu->addAction(tr("Add a config key as a column…"), this, [this] {
    bool ok = false;
    const QString key = QInputDialog::getText(this, tr("Config column"), tr("Config key (for example optimizer.lr):"),
                                              QLineEdit::Normal, QString(), &ok)
                            .trimmed();
    if (ok && !key.isEmpty() && !m_runs->configColumns().contains(key))
      showConfigColumns(m_runs->configColumns() << key);
  });
  add->setObjectName("addConfigColumn");
  return menu;
}

QMenu* RunListPanel::metricColumnsMenu(QWidget* parent) {
  auto* menu = new QMenu(tr("Metric columns"), parent);
  menu->setObjectName("metricColumnsMenu");
  QStringList shown;
  for (const MetricColumn& c : m_runs->metricColumns())
    if (!shown.contains(c.metric)) shown << c.metric;
  QStringList names = m_runs->runIndex()->metricNames();
  for (const QString& metric : shown)  // a saved column whose metric no run has (yet): still listed
    if (!names.contains(metric)) names << metric;
  for (const QString& metric : names) {
    QAction* a = menu->addAction(metric);
    a->setCheckable(true);
    a->setChecked(shown.contains(metric));
    a->setObjectName("metricColumn:" + metric);
    connect(a, &QAction::toggled, this, [this, metric](bool on) { showMetricColumns(metric, on); });
  }
  if (names.isEmpty()) menu->addAction(tr("No metrics indexed yet"))->setEnabled(false);
  return menu;
}

void RunListPanel::showMetricColumns(const QString& metric, bool shown) {
  QList<MetricColumn> columns;
  for (const MetricColumn& c : m_runs->metricColumns())
    if (c.metric != metric) columns << c;
  if (shown) columns << defaultMetricColumns(metric);
  changeExtraColumns([&] { m_runs->setMetricColumns(columns); });
}

void RunListPanel::showConfigColumns(const QStringList& keys) {
  changeExtraColumns([&] { m_runs->setConfigColumns(keys); });
}

void RunListPanel::changeExtraColumns(const std::function<void()>& change) {
  // A reset: the hidden columns are set again, and the run selected selected again.
  const QList<int> hidden = hiddenColumns();
  change();
  setHiddenColumns(hidden);
  QSettings().setValue(kConfigColumnsKey, m_runs->configColumns());
  QSettings().setValue(kMetricColumnsKey, metricColumnTitles(m_runs->metricColumns()));
  selectRun(m_selected);
  fitColumns();
}

QList<int> RunListPanel::hiddenColumns() const {
  QList<int> hidden;
  for (int c = 0; c < RunListModel::ColumnCount; ++c)
    if (m_table->isColumnHidden(c)) hidden << c;
  return hidden;
}

void RunListPanel::setHiddenColumns(const QList<int>& columns) {
  for (int c = 0; c < RunListModel::ColumnCount; ++c) m_table->setColumnHidden(c, columns.contains(c));
}

void RunListPanel::fitColumns() {
  fitColumnsToContents(m_table, kMaxColumnChars);
}

}  // namespace traindeck
