#include "compare_tables.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "item_hover.h"
#include "runs/comparison.h"
#include "runs/comparison_summary_model.h"
#include "runs/config_diff_model.h"
#include "table_fit.h"

namespace traindeck {

namespace {

QTableView* makeTable(QWidget* parent, const QString& name) {
  auto* view = new QTableView(parent);
  view->setObjectName(name);
  view->verticalHeader()->hide();
  view->horizontalHeader()->setStretchLastSection(true);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->setAlternatingRowColors(true);
  view->setTextElideMode(Qt::ElideMiddle);  // a long run name keeps its start and its end
  view->horizontalHeader()->setTextElideMode(Qt::ElideMiddle);
  return view;
}

}  // namespace

CompareTables::CompareTables(const Comparison* comparison, QWidget* parent)
    : QTabWidget(parent),
      m_comparison(comparison),
      m_summary(new ComparisonSummaryModel(comparison, this)),
      m_diff(new ConfigDiffModel(comparison, this)) {
  auto* summaryTab = new QWidget(this);
  auto* summaryLayout = new QVBoxLayout(summaryTab);
  m_summaryView = makeTable(summaryTab, "compareSummary");
  auto* proxy = new QSortFilterProxyModel(this);
  proxy->setSourceModel(m_summary);
  proxy->setSortRole(ComparisonSummaryModel::SortRole);
  m_summaryView->setModel(proxy);
  m_summaryView->setSortingEnabled(true);
  m_summaryView->sortByColumn(-1, Qt::AscendingOrder);  // the comparison's order until a header is clicked
  m_summaryView->setToolTip(
      tr("Click a header to sort; double-click a run to open it; right-click it to pick its colour."));
  summaryLayout->addWidget(m_summaryView, 1);
  auto* csvRow = new QHBoxLayout;
  csvRow->addStretch(1);
  auto* csvButton = new QPushButton(tr("Export CSV…"), summaryTab);
  csvButton->setObjectName("compareExportCsv");
  connect(csvButton, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the summary"), "comparison.csv", "CSV (*.csv)");
    if (!path.isEmpty()) exportSummaryCsv(path);
  });
  csvRow->addWidget(csvButton);
  summaryLayout->addLayout(csvRow);
  addTab(summaryTab, tr("Summary"));

  auto* diffTab = new QWidget(this);
  auto* diffLayout = new QVBoxLayout(diffTab);
  m_diffView = makeTable(diffTab, "compareDiff");
  m_diffView->setModel(m_diff);
  diffLayout->addWidget(m_diffView, 1);
  m_showAll = new QCheckBox(tr("Show all keys"), diffTab);
  m_showAll->setObjectName("compareShowAllKeys");
  m_showAll->setToolTip(tr("Off: only the keys whose values differ between the runs."));
  connect(m_showAll, &QCheckBox::toggled, m_diff, &ConfigDiffModel::setShowAll);
  diffLayout->addWidget(m_showAll);
  addTab(diffTab, tr("Config diff"));

  // Each view fits its own model when that resets (the other may not have caught up yet); a long
  // run name is elided, whole in its tooltip.
  connect(m_summary, &QAbstractItemModel::modelReset, this,
          [this] { fitColumnsToContents(m_summaryView, kMaxColumnChars); });
  connect(m_diff, &QAbstractItemModel::modelReset, this, [this] {
    fitColumnsToContents(m_diffView, kMaxColumnChars);
    setTabText(1, tr("Config diff (%1)").arg(m_diff->rowCount()));
  });
  connect(m_summaryView, &QTableView::doubleClicked, this, [this, proxy](const QModelIndex& index) {
    const int row = proxy->mapToSource(index).row();
    if (row >= 0 && row < m_comparison->size()) emit runActivated(m_comparison->run(row).runDir);
  });
  followItemHover(m_summaryView, [this, proxy](const QModelIndex& index) {
    emit runHovered(index.isValid() ? proxy->mapToSource(index).row() : -1);
  });
  m_summaryView->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_summaryView, &QWidget::customContextMenuRequested, this, [this, proxy](const QPoint& pos) {
    const QModelIndex index = m_summaryView->indexAt(pos);
    if (index.isValid())
      emit colourMenuRequested({proxy->mapToSource(index).row()}, m_summaryView->viewport()->mapToGlobal(pos));
  });
  setTabText(1, tr("Config diff (%1)").arg(m_diff->rowCount()));
}

bool CompareTables::exportSummaryCsv(const QString& path) {
  QSaveFile file(path);
  if (file.open(QIODevice::WriteOnly) && file.write(m_summary->toCsv().toUtf8()) >= 0 && file.commit()) return true;
  if (isVisible())
    QMessageBox::warning(this, tr("Export failed"), tr("Could not write %1: %2").arg(path, file.errorString()));
  return false;
}

}  // namespace traindeck
