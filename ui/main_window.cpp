// Selecting a run opens a RunSession on it (and re-attaches to its supervisor when it still
// runs, so Stop and Kill work after the app was closed and reopened); Start saves the Setup
// page's job to a file beside the new run and runs `traindeck-train run` as a child process.
#include "main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QFile>
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
#include "config/validate.h"
#include "hosts_dialog.h"
#include "jobs/local_job.h"
#include "logs_page.h"
#include "monitor_page.h"
#include "runlog/run_directory.h"
#include "runs/comparison.h"
#include "runs/comparison_sets.h"
#include "runs/run_list_model.h"
#include "runs/run_session.h"
#include "setup_page.h"

namespace traindeck {

namespace {

QString levelName(LogLevel level) {
  switch (level) {
    case LogLevel::Error:
      return QStringLiteral("error");
    case LogLevel::Warn:
      return QStringLiteral("warn");
    case LogLevel::Info:
      return QStringLiteral("info");
    case LogLevel::Plain:
      break;
  }
  return {};
}

}  // namespace

MainWindow::MainWindow(const MainWindowOptions& options, QWidget* parent)
    : QMainWindow(parent),
      m_options(options),
      m_runs(new RunListModel(this)),
      m_comparison(std::make_unique<Comparison>()),
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
  // The list shows name, status, step, total and loss; the id and path are in the run label.
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
  m_start = add(tr("Start"), QKeySequence(Qt::CTRL | Qt::Key_R), tr("Train this job on this machine"),
                [this] { startRun(); });
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
  hosts->setToolTip(tr("SSH hosts for remote runs: add, edit, test a connection"));
}

void MainWindow::updateActions() {
  const bool running =
      m_job && (m_job->state() == LocalJob::State::Starting || m_job->state() == LocalJob::State::Running ||
                m_job->state() == LocalJob::State::Stopping);
  m_start->setEnabled(m_setup->isStartable() && !running);
  m_start->setStatusTip(m_setup->isStartable() ? QString() : tr("Fix the problems on the Setup page to start"));
  m_stop->setEnabled(running && m_job->state() != LocalJob::State::Stopping);
  m_kill->setEnabled(running);
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
  if (m_session && m_session->runDir() == runDir) return;
  m_session = std::make_unique<RunSession>(runDir, this);
  m_monitor->clear();
  m_logs->clear();
  const RunSession* session = m_session.get();
  connect(session, &RunSession::metricsChanged, this, [this, session] {
    MetricsView view;
    view.train = &session->store().train();
    view.eval = &session->store().eval();
    view.system = &session->store().system();
    view.events = &session->store().events();
    view.header = session->store().header();
    const int row = m_runs->rowOfPath(session->runDir());
    view.status = row >= 0 ? m_runs->runAt(row).status : session->summary().status;
    m_monitor->showMetrics(view);
  });
  connect(session, &RunSession::logLinesAvailable, this, [this](const QVector<LogLine>& lines) {
    QVector<LogEntry> entries;
    entries.reserve(lines.size());
    for (const LogLine& line : lines) entries.push_back({line.rank, levelName(line.level), line.text});
    m_logs->appendLines(entries);
  });
  const RunSummary summary = m_session->summary();
  m_runLabel->setText(
      tr("Run <b>%1</b> · %2 · %3").arg(summary.id.toHtmlEscaped(), summary.status, runDir.toHtmlEscaped()));
  if (!m_job || m_job->runDir() != runDir) {
    // A run that still goes on (started before the app was reopened): follow its supervisor.
    if (summary.status == "running" || summary.status == "starting") {
      auto job = std::make_unique<LocalJob>();
      if (job->attach(runDir).isEmpty()) {
        m_job = std::move(job);
        connect(m_job.get(), &LocalJob::stateChanged, this, &MainWindow::updateActions);
      }
    }
  }
  const int row = m_runs->rowOfPath(runDir);
  if (row >= 0 && m_runTable->currentIndex().row() != row) m_runTable->selectRow(row);
  if (m_pages->currentWidget() == m_setup) m_pages->setCurrentWidget(m_monitor);
  showFailureIfAny();
  updateActions();
}

void MainWindow::runSelected() {
  const int row = m_runTable->currentIndex().row();
  if (row >= 0) showRun(m_runs->runAt(row).path);
}

void MainWindow::showFailureIfAny() {
  if (!m_session) return;
  const RunSummary summary = m_session->summary();
  if (summary.status != "failed") return;
  // A failure that was not a rank's (a bad spec, no free port) shows rank 0's log.
  m_logs->showFailure(std::max(0, summary.failedRank), summary.exitReason);
}

QString MainWindow::startRun(const QStringList& extraArgs) {
  if (!m_setup->isStartable()) return {};
  const RunConfig config = m_setup->config();
  const QString id = QString::fromStdString(makeRunId(std::chrono::system_clock::now(), slugify(config.name)));
  const QString runDir = QDir(m_options.runsRoot).filePath(id);
  // The job as edited, saved where relative paths mean what they meant: beside its file when it
  // has one, else beside the run.
  const QString jobFile = m_setup->filePath().isEmpty() ? runDir + ".job.yaml" : m_setup->filePath();
  QDir().mkpath(m_options.runsRoot);
  if (m_setup->filePath().isEmpty()) {
    QFile out(jobFile);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) || out.write(m_setup->yamlText().toUtf8()) < 0) {
      QMessageBox::warning(this, tr("Cannot start"), tr("Could not write %1: %2").arg(jobFile, out.errorString()));
      return {};
    }
  } else if (!m_setup->saveFile(jobFile)) {
    return {};
  }
  m_job = std::make_unique<LocalJob>();
  connect(m_job.get(), &LocalJob::stateChanged, this, &MainWindow::updateActions);
  connect(m_job.get(), &LocalJob::failedToStart, this,
          [this](const QString& why) { QMessageBox::warning(this, tr("Cannot start"), why); });
  connect(m_job.get(), &LocalJob::finished, this, [this] {
    m_runs->rescan();
    showFailureIfAny();
    updateActions();
  });
  m_job->start(m_options.trainBinary, jobFile, runDir, extraArgs);
  m_runs->rescan();
  showRun(runDir);
  m_pages->setCurrentWidget(m_monitor);
  statusBar()->showMessage(tr("Started %1").arg(id), 5000);
  return runDir;
}

void MainWindow::stopRun() {
  if (m_job) m_job->stop();
  updateActions();
}

void MainWindow::killRun() {
  if (!m_job) return;
  if (QApplication::activeModalWidget() == nullptr && isVisible() &&
      QMessageBox::question(this, tr("Kill the run?"),
                            tr("The ranks end at once, without a checkpoint. --resume continues from the last one.")) !=
          QMessageBox::Yes)
    return;
  m_job->kill();
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
