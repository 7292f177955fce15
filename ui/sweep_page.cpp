// The page keeps the filter and the selected trial; every view is drawn again from the view and
// the filter whenever either changes (a new read comes at most once a second).
#include "sweep_page.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>

#include "sweep_curves_chart.h"
#include "sweep_importance_bars.h"
#include "sweep_parallel_view.h"
#include "sweep_scatter_grid.h"
#include "sweep_trial_model.h"
#include "sweep_watcher.h"
#include "trial_job.h"

namespace traindeck {

SweepPage::SweepPage(QWidget* parent)
    : QWidget(parent),
      m_watcher(new SweepWatcher(this)),
      m_header(new QLabel(this)),
      m_message(new QLabel(this)),
      m_filterNote(new QLabel(this)),
      m_clearBrushes(new QPushButton(tr("Clear brushes"), this)),
      m_parallel(new SweepParallelView(this)),
      m_importance(new SweepImportanceBars(this)),
      m_curves(new SweepCurvesChart(this)),
      m_scatters(new SweepScatterGrid(this)),
      m_model(new SweepTrialModel(this)),
      m_proxy(new SweepTrialFilterModel(this)),
      m_table(new QTableView(this)) {
  setObjectName("sweepPage");
  m_header->setObjectName("sweepHeader");
  m_header->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  m_message->setObjectName("sweepMessage");
  m_message->setWordWrap(true);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_message->hide();
  m_clearBrushes->setObjectName("clearBrushes");
  m_proxy->setSourceModel(m_model);
  m_table->setObjectName("sweepTrials");
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(SweepTrialModel::Metric, Qt::AscendingOrder);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setWordWrap(false);
  m_table->setTextElideMode(Qt::ElideMiddle);
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);

  auto* top = new QSplitter(Qt::Horizontal);
  top->addWidget(m_parallel);
  top->addWidget(m_importance);
  top->setStretchFactor(0, 3);
  top->setStretchFactor(1, 1);
  auto* middle = new QSplitter(Qt::Horizontal);
  middle->addWidget(m_curves);
  middle->addWidget(m_scatters);
  middle->setStretchFactor(0, 1);
  middle->setStretchFactor(1, 1);
  auto* bottom = new QWidget;
  auto* bottomLayout = new QVBoxLayout(bottom);
  bottomLayout->setContentsMargins(0, 0, 0, 0);
  bottomLayout->addWidget(m_table);
  bottomLayout->addWidget(buildActions());
  for (QSplitter* splitter : {top, middle}) splitter->setChildrenCollapsible(false);
  auto* rows = new QSplitter(Qt::Vertical);
  rows->setChildrenCollapsible(false);
  rows->addWidget(top);
  rows->addWidget(middle);
  rows->addWidget(bottom);
  rows->setStretchFactor(0, 4);
  rows->setStretchFactor(1, 4);
  rows->setStretchFactor(2, 3);
  auto* filterRow = new QHBoxLayout;
  filterRow->addWidget(m_filterNote, 1);
  filterRow->addWidget(m_clearBrushes);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_header);
  layout->addWidget(m_message);
  layout->addLayout(filterRow);
  layout->addWidget(rows, 1);

  connect(m_watcher, &SweepWatcher::sweepAvailable, this, &SweepPage::showView);
  connect(m_parallel, &SweepParallelView::brushChanged, this, &SweepPage::setBrush);
  connect(m_parallel, &SweepParallelView::brushCleared, this, &SweepPage::clearBrush);
  connect(m_parallel, &SweepParallelView::trialClicked, this, &SweepPage::selectTrial);
  connect(m_clearBrushes, &QPushButton::clicked, this, &SweepPage::clearBrushes);
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const int trial = rows.isEmpty() ? -1 : rows.front().data(SweepTrialModel::kTrialRole).toInt();
    if (trial < 0 && m_selectedId.isEmpty()) return;
    m_selectedId = trial < 0 ? QString()
                             : QString::fromStdString(m_view->trials[static_cast<std::size_t>(trial)].record.params.id);
    redraw();
  });
  connect(m_table, &QTableView::doubleClicked, this, &SweepPage::showTrialRun);
  showView(nullptr);
}

QWidget* SweepPage::buildActions() {
  auto* row = new QWidget;
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  m_startFull = new QPushButton(tr("Start a full run from this trial…"), row);
  m_startFull->setObjectName("startFullRun");
  m_startFull->setToolTip(tr("Open the trial's job (the base job with its settings) on the Setup page as a new job"));
  m_showRun = new QPushButton(tr("Show run"), row);
  m_showRun->setObjectName("showTrialRun");
  m_showRun->setToolTip(tr("The trial's run on the Monitor page"));
  m_promote = new QPushButton(tr("Promote"), row);
  m_promote->setObjectName("promoteTrial");
  m_promote->setToolTip(tr("Resume this pruned trial from its checkpoint towards the next rung"));
  m_rerun = new QPushButton(tr("Run again"), row);
  m_rerun->setObjectName("rerunTrial");
  m_rerun->setToolTip(tr("Run this trial again from the start, as a new run (its run was deleted, or it failed)"));
  connect(m_startFull, &QPushButton::clicked, this, &SweepPage::startFullRun);
  connect(m_showRun, &QPushButton::clicked, this, &SweepPage::showTrialRun);
  connect(m_promote, &QPushButton::clicked, this, &SweepPage::promoteTrial);
  connect(m_rerun, &QPushButton::clicked, this, &SweepPage::rerunTrial);
  layout->addWidget(m_startFull);
  layout->addWidget(m_showRun);
  layout->addWidget(m_promote);
  layout->addWidget(m_rerun);
  layout->addStretch(1);
  return row;
}

void SweepPage::showSweep(const QString& sweepDir) {
  const QString dir = sweepDir.isEmpty() ? QString() : QFileInfo(sweepDir).absoluteFilePath();
  if (!dir.isEmpty() && dir == this->sweepDir()) return;  // already followed
  m_filter = {};
  m_selectedId.clear();
  m_watcher->open(dir);
  if (dir.isEmpty()) showView(nullptr);
}

QString SweepPage::sweepDir() const {
  return m_watcher->sweepDir();
}

void SweepPage::showView(std::shared_ptr<const SweepView> view) {
  m_view = view ? std::move(view) : std::make_shared<const SweepView>();
  const QString selected = m_selectedId;
  const bool firstRows = m_model->rowCount() == 0;
  m_model->setView(m_view);
  m_selectedId = selected;                     // the reset cleared the table's selection, not the trial chosen
  if (firstRows && m_model->rowCount() > 0) {  // fitted once: later reads keep the user's widths
    m_table->resizeColumnsToContents();
    for (int c = 0; c < m_model->columnCount(); ++c)
      m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), kMaxColumnWidth));
  }
  if (m_selectedId.isEmpty() && m_view->best >= 0)
    m_selectedId = QString::fromStdString(m_view->trials[static_cast<std::size_t>(m_view->best)].record.params.id);
  redraw();
}

void SweepPage::setBrush(const QString& axisKey, double low, double high) {
  m_filter.brushes[axisKey] = {low, high};
  redraw();
}

void SweepPage::clearBrush(const QString& axisKey) {
  if (m_filter.brushes.remove(axisKey) > 0) redraw();
}

void SweepPage::clearBrushes() {
  m_filter = {};
  redraw();
}

int SweepPage::selectedTrial() const {
  for (int t = 0; m_view && t < static_cast<int>(m_view->trials.size()); ++t)
    if (QString::fromStdString(m_view->trials[static_cast<std::size_t>(t)].record.params.id) == m_selectedId) return t;
  return -1;
}

void SweepPage::selectTrial(int trial) {
  const bool valid = m_view && trial >= 0 && trial < static_cast<int>(m_view->trials.size());
  m_selectedId =
      valid ? QString::fromStdString(m_view->trials[static_cast<std::size_t>(trial)].record.params.id) : QString();
  redraw();
}

void SweepPage::redraw() {
  m_passing = m_filter.passing(*m_view);
  const int selected = selectedTrial();
  m_proxy->setPassing(m_passing);
  {  // the table's selection follows the selected trial without announcing it again
    const QSignalBlocker block(m_table->selectionModel());
    m_table->clearSelection();
    for (int row = 0; row < m_proxy->rowCount(); ++row)
      if (m_proxy->index(row, 0).data(SweepTrialModel::kTrialRole).toInt() == selected) m_table->selectRow(row);
  }
  m_table->viewport()->update();
  m_parallel->setView(m_view, m_filter, m_passing);
  m_parallel->setSelectedTrial(selected);
  m_curves->setView(m_view, m_passing, selected);
  m_scatters->setView(m_view, m_passing, selected);
  QStringList names;
  for (const SweepAxis& axis : m_view->axes)
    if (!axis.isMetric()) names << axis.title;
  const int shown = m_filter.countPassing(*m_view);
  const ImportanceBasis basis = importanceBasis(*m_view, m_passing);
  m_importance->setImportance(names, parameterImportance(*m_view, basis),
                              (basis.rung < 0 ? tr("latest %1 of each trial").arg(m_view->metricName)
                                              : tr("%1 at rung %2 (%3)")
                                                    .arg(m_view->metricName)
                                                    .arg(basis.rung)
                                                    .arg(progressText(basis.at, m_view->unit))) +
                                  tr(", %1 trials").arg(basis.trials));
  QStringList brushed;
  for (const QString& key : m_filter.brushes.keys())
    if (const SweepAxis* axis = m_view->axis(key)) brushed << axis->title;
  m_filterNote->setText(
      m_filter.isEmpty()
          ? tr("Drag along an axis to filter the trials")
          : tr("Showing %1 of %2 trials (brushed: %3)").arg(shown).arg(m_view->trials.size()).arg(brushed.join(", ")));
  m_clearBrushes->setEnabled(!m_filter.isEmpty());
  showHeader();
  updateActions();
}

void SweepPage::showHeader() {
  if (m_watcher->sweepDir().isEmpty()) {
    m_header->setText(tr("No sweep shown: File > Open sweep… picks a sweep folder (the one holding sweep.json)"));
    m_message->hide();
    return;
  }
  QString text = tr("Sweep <b>%1</b>").arg(QFileInfo(m_view->dir).fileName().toHtmlEscaped());
  if (m_view->spec) text += " · " + QString(sweepMethodName(m_view->spec->method));
  text += " · " + trialCountsText(*m_view).toHtmlEscaped();
  if (m_view->best >= 0) {
    const SweepTrialView& best = m_view->trials[static_cast<std::size_t>(m_view->best)];
    text += tr(" · best <b>%1</b>: %2 %3 (%4)")
                .arg(QString::fromStdString(best.record.params.name).toHtmlEscaped(), m_view->metricName)
                .arg(best.metric, 0, 'g', 5)
                .arg(m_view->goal == MetricGoal::Min ? tr("lowest") : tr("highest"));
  }
  m_header->setText(text);
  m_header->setToolTip(QDir::toNativeSeparators(m_view->dir));
  const QString message = !m_view->error.isEmpty() ? m_view->error
                          : !m_view->specProblem.isEmpty()
                              ? tr("The sweep file cannot be read, so parameters are shown as linear and the "
                                   "metric as %1 (lower is better): %2")
                                    .arg(m_view->metricName, m_view->specProblem)
                              : QString();
  m_message->setText(message);
  m_message->setStyleSheet(m_view->error.isEmpty() ? "color: #a66a00" : "color: #c0392b; font-weight: bold");
  m_message->setVisible(!message.isEmpty());
}

void SweepPage::updateActions() {
  const int t = selectedTrial();
  const SweepTrialView* trial = t >= 0 ? &m_view->trials[static_cast<std::size_t>(t)] : nullptr;
  m_startFull->setEnabled(trial && m_view->spec);
  m_showRun->setEnabled(trial && !trial->runDir.isEmpty() && !trial->runMissing);
  m_promote->setEnabled(trial && trial->record.state == TrialState::Pruned);
  m_rerun->setEnabled(trial &&
                      (trial->record.state == TrialState::Deleted || trial->record.state == TrialState::Failed));
}

void SweepPage::startFullRun() {
  const TrialJobText job = trialJobText(*m_view, selectedTrial());
  if (!job.error.isEmpty()) return emit problem(tr("Cannot open the trial's job"), job.error);
  emit fullRunRequested(job.yaml, job.baseDir);
}

void SweepPage::showTrialRun() {
  const int t = selectedTrial();
  if (t < 0 || m_view->trials[static_cast<std::size_t>(t)].runDir.isEmpty()) return;
  emit runRequested(m_view->trials[static_cast<std::size_t>(t)].runDir);
}

void SweepPage::promoteTrial() {
  const int t = selectedTrial();
  if (t < 0 || m_view->trials[static_cast<std::size_t>(t)].record.state != TrialState::Pruned) return;
  emit promoteRequested(m_view->dir,
                        QString::fromStdString(m_view->trials[static_cast<std::size_t>(t)].record.params.id));
}

void SweepPage::rerunTrial() {
  const int t = selectedTrial();
  if (t < 0) return;
  const TrialRecord& record = m_view->trials[static_cast<std::size_t>(t)].record;
  if (record.state != TrialState::Deleted && record.state != TrialState::Failed) return;
  emit rerunRequested(m_view->dir, QString::fromStdString(record.params.id));
}

}  // namespace traindeck
