// Selecting a run takes its shared session from the registry; the JobController re-attaches at
// start-up to the runs still going, so Stop and Kill work after the app was closed and reopened.
// Start hands the Setup page's job to the JobController, which picks the kind of job.
#include "main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QToolBar>
#include <QVBoxLayout>

#include "compare_page.h"
#include "host_key_prompt.h"
#include "hosts_dialog.h"
#include "jobs/job_controller.h"
#include "logs_page.h"
#include "monitor_page.h"
#include "runlog/run_directory.h"
#include "runs/comparison.h"
#include "runs/comparison_sets.h"
#include "runs/run_list_model.h"
#include "runs/run_registry.h"
#include "runs/run_session.h"
#include "setup_page.h"

namespace traindeck {

MainWindow::MainWindow(const MainWindowOptions& options, QWidget* parent)
    : QMainWindow(parent),
      m_options(options),
      m_registry(std::make_unique<RunRegistry>()),
      m_jobs(new JobController(options.runsRoot, options.trainBinary, this)),
      m_runs(new RunListModel(this)),
      m_comparison(std::make_unique<Comparison>(*m_registry)),
      m_comparisonSets(std::make_unique<ComparisonSets>(options.runsRoot)) {
  setWindowTitle(tr("TrainDeck"));
  m_splitter = new QSplitter(Qt::Horizontal, this);

  auto* left = new QWidget(m_splitter);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  leftLayout->addWidget(new QLabel(tr("<b>Runs</b>"), left));
  m_runTable = new QTableView(left);
  m_runTable->setObjectName("runList");
  m_runTable->setModel(m_runs);
  m_runTable->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_runTable->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_runTable->verticalHeader()->hide();
  m_runTable->horizontalHeader()->setStretchLastSection(true);
  // The list shows name, status, step, total, loss and where it runs; the id and path are in the run label.
  for (int column : {RunListModel::IdColumn, RunListModel::CreatedColumn, RunListModel::PathColumn})
    m_runTable->setColumnHidden(column, true);
  m_runTable->setAlternatingRowColors(true);
  m_runTable->setToolTip(tr("Every run under %1, newest first. Select one to watch it; select several "
                            "(Ctrl- or Shift-click) to compare them.")
                             .arg(options.runsRoot));
  leftLayout->addWidget(m_runTable, 1);

  auto* right = new QWidget(m_splitter);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  m_runLabel = new QLabel(right);
  m_runLabel->setObjectName("runLabel");
  rightLayout->addWidget(m_runLabel);
  m_pages = new QTabWidget(right);
  m_pages->setObjectName("pages");
  m_setup = new SetupPage(options.presetDirs, m_pages);
  m_monitor = new MonitorPage(m_pages);
  m_logs = new LogsPage(m_pages);
  m_pages->addTab(m_setup, tr("&Setup"));
  m_pages->addTab(m_monitor, tr("&Monitor"));
  m_compare = new ComparePage(m_comparison.get(), m_comparisonSets.get(), m_pages);
  m_pages->addTab(m_logs, tr("&Logs"));
  m_pages->addTab(m_compare, tr("&Compare"));
  rightLayout->addWidget(m_pages, 1);
  m_splitter->setStretchFactor(1, 3);
  setCentralWidget(m_splitter);

  buildActions();
  connect(m_setup, &SetupPage::validityChanged, this, &MainWindow::updateActions);
  connect(m_runTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &MainWindow::runSelected);
  connect(m_runTable->selectionModel(), &QItemSelectionModel::selectionChanged, this, &MainWindow::updateActions);
  connect(m_compare, &ComparePage::runActivated, this, [this](const QString& runDir) {
    showRun(runDir);
    m_pages->setCurrentWidget(m_monitor);
  });
  connect(m_runs, &QAbstractItemModel::dataChanged, this, &MainWindow::showFailureIfAny);
  connect(m_runs, &QAbstractItemModel::rowsInserted, m_runTable, [this] { m_runTable->resizeColumnsToContents(); });
  connect(m_runs, &QAbstractItemModel::dataChanged, m_runTable, [this] { m_runTable->resizeColumnsToContents(); });

  JobController::RemoteOptions remote;
  remote.payloadDir = options.remotePayloadDir.isEmpty()
                          ? QDir(QFileInfo(options.trainBinary).absolutePath()).filePath("../share/traindeck/remote")
                          : options.remotePayloadDir;
  remote.hostKeyPrompt = [this](const HostKeyInfo& key) { return HostKeyPrompt::ask(key, this); };
  m_jobs->setRemoteOptions(remote);
  connect(m_jobs, &JobController::jobLinkChanged, m_runs, &RunListModel::setLinkNote);
  connect(m_jobs, &JobController::jobStateChanged, this, &MainWindow::updateActions);
  connect(m_jobs, &JobController::jobFailedToStart, this,
          [this](const QString&, const QString& why) { tellProblem(tr("Cannot start"), why); });
  connect(m_jobs, &JobController::jobFinished, this, [this] {
    m_runs->rescan();
    showFailureIfAny();
    updateActions();
  });
  m_jobs->attachRunning();  // runs started before the app was reopened
  m_runs->setRunsRoot(options.runsRoot);
  openConfig(options.configPath);
  if (!options.openRun.isEmpty()) showRun(options.openRun);
  if (!options.compareRuns.isEmpty()) compareRuns(options.compareRuns);

  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
  if (!m_splitter->restoreState(settings.value("window/splitter").toByteArray())) m_splitter->setSizes({260, 1000});
  if (options.openRun.isEmpty() && options.compareRuns.isEmpty())
    m_pages->setCurrentIndex(settings.value("window/page", 0).toInt());
  updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions() {
  QToolBar* bar = addToolBar(tr("Run"));
  bar->setObjectName("runToolBar");
  const auto add = [&](const QString& text, const QKeySequence& keys, const QString& tip, auto slot) {
    QAction* action = bar->addAction(text, this, slot);
    action->setShortcut(keys);
    action->setToolTip(tip + " (" + keys.toString(QKeySequence::NativeText) + ")");
    return action;
  };
  add(tr("New"), QKeySequence::New, tr("A new job from the preset chooser on the Setup page"), [this] {
    m_pages->setCurrentWidget(m_setup);
    m_setup->choosePreset("demo-cpu");
  });
  add(tr("Open…"), QKeySequence::Open, tr("Open a job's YAML file"), [this] {
    m_pages->setCurrentWidget(m_setup);
    m_setup->openFile();
  });
  add(tr("Save…"), QKeySequence::Save, tr("Save the job as YAML"), [this] { m_setup->saveFile(m_setup->filePath()); });
  bar->addSeparator();
  m_start =
      add(tr("Start"), QKeySequence(Qt::CTRL | Qt::Key_R),
          tr("Train this job on its target: this machine, or the SSH host set under Target"), [this] { startRun(); });
  m_stop =
      add(tr("Stop"), QKeySequence(Qt::CTRL | Qt::Key_Period),
          tr("Stop the run gracefully: every rank finishes its step and saves a checkpoint"), [this] { stopRun(); });
  m_kill = add(tr("Kill"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K),
               tr("End the run at once (no checkpoint; --resume continues from the last one)"), [this] { killRun(); });
  m_start->setObjectName("startAction");
  m_stop->setObjectName("stopAction");
  m_kill->setObjectName("killAction");
  bar->addSeparator();
  m_compareAction = add(tr("Compare"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C),
                        tr("Show the selected runs side by side"), [this] { compareRuns(); });
  m_compareAction->setObjectName("compareAction");
  bar->addSeparator();
  QAction* hosts = bar->addAction(tr("Hosts…"), this, [this] {
    QSettings settings;
    HostsDialog(settings, this).exec();
  });
  hosts->setObjectName("hostsAction");
  // Ctrl+Q closes the window (runs go on; reopening re-attaches).
  auto* quit = new QAction(tr("Quit"), this);
  quit->setObjectName("quitAction");
  quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
  quit->setShortcutContext(Qt::ApplicationShortcut);
  connect(quit, &QAction::triggered, this, &QWidget::close);
  addAction(quit);
  hosts->setToolTip(tr("SSH hosts for remote runs: add, edit, test a connection"));
}

void MainWindow::tellProblem(const QString& title, const QString& text) {
  // Window-modal but not blocking: the app keeps following its runs while the message is up.
  auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
  box->setObjectName("problemMessage");
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
  statusBar()->showMessage(text, 10000);
}

Job* MainWindow::shownJob() const {
  return m_session ? m_jobs->jobFor(m_session->runDir()) : nullptr;
}

void MainWindow::updateActions() {
  const Job* job = shownJob();
  const bool active = job && job->isActive();
  m_start->setEnabled(m_setup->isStartable());
  m_start->setStatusTip(m_setup->isStartable() ? QString() : tr("Fix the problems on the Setup page to start"));
  m_stop->setEnabled(active && job->state() != Job::State::Stopping);
  m_kill->setEnabled(active);
  const QString noJob = job ? QString() : tr("The run shown has no live job in this app");
  m_stop->setStatusTip(noJob);
  m_kill->setStatusTip(noJob);
  const qsizetype selected = selectedRunDirs().size();
  m_compareAction->setEnabled(selected >= 2 && selected <= Comparison::kMaxRuns);
  m_compareAction->setStatusTip(
      selected >= 2 ? QString()
                    : tr("Select 2 to %1 runs (Ctrl- or Shift-click) to compare them").arg(Comparison::kMaxRuns));
}

QStringList MainWindow::selectedRunDirs() const {
  QStringList dirs;
  for (const QModelIndex& index : m_runTable->selectionModel()->selectedRows()) dirs << m_runs->runAt(index.row()).path;
  return dirs;
}

void MainWindow::compareRuns(const QStringList& runDirs) {
  const QStringList dirs = runDirs.isEmpty() ? selectedRunDirs() : runDirs;
  if (dirs.isEmpty()) return;
  m_compare->compareRuns(dirs);
  m_pages->setCurrentWidget(m_compare);
}

QString MainWindow::currentRunDir() const {
  return m_session ? m_session->runDir() : QString();
}

void MainWindow::openConfig(const QString& nameOrPath) {
  if (QFile::exists(nameOrPath))
    m_setup->openFile(nameOrPath);
  else
    m_setup->choosePreset(nameOrPath);
}

void MainWindow::showRun(const QString& runDir) {
  const QString dir = QFileInfo(runDir).absoluteFilePath();
  if (m_session && m_session->runDir() == dir) return;
  // The pages let go of the old run's stores (and their hold on its session) first.
  m_monitor->clear();
  m_logs->clear();
  if (m_session) disconnect(m_session.get(), nullptr, this, nullptr);
  m_session = m_registry->session(dir);
  connect(m_session.get(), &RunSession::metricsChanged, this, &MainWindow::showSessionMetrics);
  connect(m_session.get(), &RunSession::logsChanged, this, [this] { m_logs->showLines(m_session->logs(), m_session); });
  // A session the Compare page already holds has its data already: show it now.
  showSessionMetrics();
  m_logs->showLines(m_session->logs(), m_session);
  const RunSummary summary = m_session->summary();
  m_runLabel->setText(
      tr("Run <b>%1</b> · %2 · %3 · %4")
          .arg(summary.id.toHtmlEscaped(), summary.statusName(),
               summary.remoteSpec.isEmpty() ? tr("this machine") : tr("on %1").arg(summary.remoteSpec.toHtmlEscaped()),
               dir.toHtmlEscaped()));
  // A run that goes on without a job here (started by the CLI, or outside the runs root).
  if (summary.isLive() && !m_jobs->jobFor(dir)) m_jobs->attach(dir);
  const int row = m_runs->rowOfPath(dir);
  if (row >= 0 && m_runTable->currentIndex().row() != row) m_runTable->selectRow(row);
  if (m_pages->currentWidget() == m_setup) m_pages->setCurrentWidget(m_monitor);
  showFailureIfAny();
  updateActions();
}

void MainWindow::showSessionMetrics() {
  const int row = m_runs->rowOfPath(m_session->runDir());
  const QString status = row >= 0 ? m_runs->runAt(row).statusName() : m_session->summary().statusName();
  m_monitor->showMetrics(metricsViewOf(m_session->metrics(), status, m_session));
}

void MainWindow::runSelected() {
  const int row = m_runTable->currentIndex().row();
  if (row >= 0) showRun(m_runs->runAt(row).path);
}

void MainWindow::showFailureIfAny() {
  if (!m_session) return;
  const RunSummary summary = m_session->summary();
  if (!summary.hasStatus(RunStatus::Failed)) return;
  // A failure that was not a rank's (a bad spec, no free port) shows rank 0's log.
  m_logs->showFailure(std::max(0, summary.failedRank), summary.exitReason);
}

QString MainWindow::startRun(const QStringList& extraArgs) {
  if (!m_setup->isStartable()) return {};
  // The job as edited: saved to its file when it has one (relative paths keep their meaning
  // beside it); else the controller writes it beside the run.
  const bool hasFile = !m_setup->filePath().isEmpty();
  if (hasFile && !m_setup->saveFile(m_setup->filePath())) return {};
  const JobController::Started started =
      m_jobs->start(m_setup->config(), hasFile ? m_setup->filePath() : QString(), m_setup->yamlText(), extraArgs);
  if (!started.error.isEmpty()) {
    tellProblem(tr("Cannot start"), started.error);
    return {};
  }
  m_runs->rescan();
  showRun(started.runDir);
  m_pages->setCurrentWidget(m_monitor);
  statusBar()->showMessage(tr("Started %1").arg(QFileInfo(started.runDir).fileName()), 5000);
  return started.runDir;
}

void MainWindow::stopRun() {
  if (Job* job = shownJob()) job->stop();
  updateActions();
}

void MainWindow::killRun() {
  Job* job = shownJob();
  if (!job || !job->isActive()) return;
  if (QApplication::activeModalWidget() == nullptr && isVisible() &&
      QMessageBox::question(this, tr("Kill the run?"),
                            tr("The ranks end at once, without a checkpoint. --resume continues from the last one.")) !=
          QMessageBox::Yes)
    return;
  job->kill();
  updateActions();
}

bool MainWindow::saveScreenshots(const QString& folder) {
  QDir().mkpath(folder);
  bool ok = true;
  const auto settle = [] {  // let queued redraws (charts batch theirs) happen before the grab
    for (int spin = 0; spin < 10; ++spin) {
      QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
      QThread::msleep(10);
    }
  };
  const QStringList names = {"setup", "monitor", "logs", "compare"};
  for (int i = 0; i < m_pages->count(); ++i) {
    m_pages->setCurrentIndex(i);
    settle();
    ok = grab().save(QDir(folder).filePath(names.value(i, QString::number(i)) + ".png")) && ok;
  }
  if (m_comparison->size() > 0) {  // the Compare page's other mode
    m_compare->setMode(ComparePage::Mode::SmallMultiples);
    settle();
    ok = grab().save(QDir(folder).filePath("compare-multiples.png")) && ok;
    m_compare->setMode(ComparePage::Mode::Overlay);
  }
  return ok;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  settings.setValue("window/splitter", m_splitter->saveState());
  settings.setValue("window/page", m_pages->currentIndex());
  // A run started here goes on without the app (its supervisor was started detached);
  // reopening the app and selecting it re-attaches to it.
  QMainWindow::closeEvent(event);
}

}  // namespace traindeck
