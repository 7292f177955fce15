// Selecting a run takes its shared session from the registry; the JobController re-attaches at
// start-up to the runs still going, so Stop and Kill work after the app was closed and reopened.
// Start hands the Setup page's job to the JobController, which picks the kind of job.
#include "main_window.h"

#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

#include "bootstrap_view.h"
#include "compare_page.h"
#include "help_menu.h"
#include "host_key_prompt.h"
#include "host_model.h"
#include "hosts_dialog.h"
#include "interactive_prompt_dialog.h"
#include "jobs/checkpoint_sync.h"
#include "jobs/job_controller.h"
#include "jobs/local_devices.h"
#include "link_status_label.h"
#include "logs_page.h"
#include "monitor_page.h"
#include "page_screenshots.h"
#include "run_list_panel.h"
#include "run_menu.h"
#include "runlog/run_directory.h"
#include "runs/comparison.h"
#include "runs/comparison_sets.h"
#include "runs/run_list_model.h"
#include "runs/run_registry.h"
#include "runs/run_session.h"
#include "setup_page.h"
#include "sweep/sweep_state_file.h"
#include "sweep_folder_reader.h"
#include "sweep_page.h"
#include "sweep_runners.h"
#include "window_state.h"

namespace traindeck {

MainWindow::MainWindow(const MainWindowOptions& options, QWidget* parent)
    : QMainWindow(parent),
      m_options(options),
      m_registry(std::make_unique<RunRegistry>(nullptr, MetricsCache(MetricsCache::defaultDir()))),
      m_jobs(new JobController(options.runsRoot, options.trainBinary, this)),
      m_sweeps(new SweepRunners(*m_jobs, this)),
      m_runs(new RunListModel(this)),
      m_comparison(std::make_unique<Comparison>(*m_registry)),
      m_comparisonSets(std::make_unique<ComparisonSets>(options.runsRoot)) {
  setWindowTitle(tr("TrainDeck"));
  m_runMenu =
      new RunMenu(m_jobs, m_runs, this,
                  {.showRun = [this](const QString& dir) { showRun(dir); },
                   .compare = [this](const QStringList& dirs) { compareRuns(dirs); },
                   .tellProblem = [this](const QString& title, const QString& text) { tellProblem(title, text); },
                   .note = [this](const QString& text) { statusBar()->showMessage(text, 3000); },
                   .releaseRun = [this](const QString& dir) { releaseShownRun(dir); },
                   .renamed = [this] { showShownRunStatus(); }});
  m_splitter = new QSplitter(Qt::Horizontal, this);

  m_runList = new RunListPanel(m_runs, options.runsRoot, m_splitter);
  auto* right = new QWidget(m_splitter);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  m_runLabel = new QLabel(right);
  m_runLabel->setObjectName("runLabel");
  // Its text (a run's id, its folder) never sets the window's width: cut at the window's edge.
  m_runLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  rightLayout->addWidget(m_runLabel);
  m_pages = new QTabWidget(right);
  m_pages->setObjectName("pages");
  m_presetDirs = options.presetDirs;
  m_setup = new SetupPage(options.presetDirs, m_pages);
  m_setup->setRunsRoot(options.runsRoot);
  m_setup->setTrainBinary(options.trainBinary);
  // This machine's devices as the trainer that runs local jobs sees them: the Setup page checks
  // local jobs against them, as `traindeck-train validate` does.
  auto* thisMachine = new LocalDevicesProbe(this);
  connect(thisMachine, &LocalDevicesProbe::devicesAvailable, m_setup, &SetupPage::setThisMachine);
  connect(thisMachine, &LocalDevicesProbe::devicesFailed, this, [this](const QString& why) {
    statusBar()->showMessage(tr("This machine's devices are not known: %1").arg(why), 10000);
  });
  thisMachine->start(options.trainBinary);
  m_monitor = new MonitorPage(m_pages);
  // The Monitor's charts by name, as chosen last time.
  if (const QStringList charts = QSettings().value(kMonitorChartsKey).toStringList(); !charts.isEmpty())
    m_monitor->setChartNames(charts);
  connect(m_monitor, &MonitorPage::chartNamesChanged, this,
          [](const QStringList& names) { QSettings().setValue(kMonitorChartsKey, names); });
  m_logs = new LogsPage(m_pages);
  m_pages->addTab(m_setup, tr("&Setup"));
  m_pages->addTab(m_monitor, tr("&Monitor"));
  m_compare = new ComparePage(m_comparison.get(), m_comparisonSets.get(), m_pages);
  m_pages->addTab(m_logs, tr("&Logs"));
  m_pages->addTab(m_compare, tr("&Compare"));
  m_sweep = new SweepPage(m_pages);
  m_pages->addTab(m_sweep, tr("S&weep"));
  m_bootstrap = new BootstrapView(right);
  rightLayout->addWidget(m_bootstrap);
  rightLayout->addWidget(m_pages, 1);
  m_splitter->setStretchFactor(1, 3);
  setCentralWidget(m_splitter);

  buildActions();
  connect(m_setup, &SetupPage::validityChanged, this, &MainWindow::updateActions);
  connect(m_runList, &RunListPanel::runPicked, this, &MainWindow::showRun);
  connect(m_runList, &RunListPanel::selectionChanged, this, &MainWindow::updateActions);
  connect(m_runList, &RunListPanel::menuRequested, this, [this](const QStringList& dirs, const QPoint& at) {
    QMenu* menu = runMenu(dirs);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(at);
  });
  connect(m_compare, &ComparePage::runActivated, this, [this](const QString& runDir) {
    showRun(runDir);
    m_pages->setCurrentWidget(m_monitor);
  });
  connect(m_sweep, &SweepPage::fullRunRequested, this, [this](const QString& yaml, const QString& baseDir) {
    m_pages->setCurrentWidget(m_setup);
    m_setup->newFromText(yaml, baseDir);
    statusBar()->showMessage(tr("The trial's job, not saved yet: edit it, then Start"), 6000);
  });
  connect(m_sweep, &SweepPage::runRequested, this, [this](const QString& runDir) {
    showRun(runDir);
    m_pages->setCurrentWidget(m_monitor);
  });
  connect(m_sweep, &SweepPage::problem, this, &MainWindow::tellProblem);
  connect(m_sweep, &SweepPage::promoteRequested, this, [this](const QString& sweepDir, const QString& trialId) {
    if (const QString why = m_sweeps->promote(sweepDir, trialId); !why.isEmpty()) tellProblem(tr("Cannot promote"), why);
  });
  connect(m_sweep, &SweepPage::rerunRequested, this, [this](const QString& sweepDir, const QString& trialId) {
    if (const QString why = m_sweeps->rerun(sweepDir, trialId); !why.isEmpty())
      tellProblem(tr("Cannot run the trial again"), why);
  });
  connect(m_runs, &QAbstractItemModel::dataChanged, this, &MainWindow::showFailureIfAny);
  // The shown run's status, wherever it is said, follows the list's.
  connect(m_runs, &QAbstractItemModel::dataChanged, this, &MainWindow::showShownRunStatus);
  connect(m_runs, &QAbstractItemModel::rowsInserted, this, &MainWindow::showShownRunStatus);
  connect(m_runs, &QAbstractItemModel::modelReset, this, &MainWindow::showShownRunStatus);
  m_linkStatus = new LinkStatusLabel(this);
  statusBar()->addPermanentWidget(m_linkStatus);

  JobController::RemoteOptions remote;
  remote.payloadDir = options.remotePayloadDir.isEmpty()
                          ? QDir(QFileInfo(options.trainBinary).absolutePath()).filePath("../share/traindeck/remote")
                          : options.remotePayloadDir;
  m_remotePayloadDir = remote.payloadDir;
  m_setup->setTrainerSources(QDir(m_remotePayloadDir).filePath("trainer-sources.tar.gz"));
  m_setup->setGpt2FilesScript(QDir(m_remotePayloadDir).filePath("../fetch-gpt2-tokenizer.sh"));
  remote.hostKeyPrompt = [this](const HostKeyInfo& key) { return HostKeyPrompt::ask(key, this); };
  remote.interactivePrompt = [this](const InteractivePrompt& prompt) {
    return InteractivePromptDialog::ask(prompt, this);
  };
  remote.installPrompt = [this](const QString& question) {
    return QMessageBox::question(this, tr("Install build tools?"), question) == QMessageBox::Yes;
  };
  remote.checkpointsKeptHere = QSettings().value(kCheckpointsKeptHereKey, remote.checkpointsKeptHere).toInt();
  m_jobs->setRemoteOptions(remote);
  connect(m_jobs, &JobController::jobLinkChanged, m_runs, &RunListModel::setLinkNote);
  connect(m_jobs, &JobController::jobLinkChanged, this, [this](const QString& runDir) { showLink(runDir); });
  connect(m_jobs, &JobController::hostProbed, this, [this](const QString& spec, const HostProbe& probe) {
    QSettings settings;
    HostStore::saveProbe(settings, spec, probe);
    refreshHosts();
  });
  connect(m_setup, &SetupPage::hostsRequested, this, &MainWindow::openHosts);
  refreshHosts();
  connect(m_jobs, &JobController::jobStateChanged, this, &MainWindow::updateActions);
  connect(m_jobs, &JobController::jobStateChanged, this, [this](const QString& runDir, Job::State state) {
    m_runs->setJobActive(runDir, Job::isActive(state));
    if (const Job* job = m_jobs->jobFor(runDir)) m_runs->setJobHosts(runDir, job->hosts());
    m_runs->rescan();
    showShownRunStatus();
  });
  connect(m_jobs, &JobController::jobFailedToStart, this,
          [this](const QString&, const QString& why) { tellProblem(tr("Cannot start"), why); });
  connect(m_jobs, &JobController::jobFinished, this, [this] {
    m_runs->rescan();
    showFailureIfAny();
    updateActions();
  });
  m_jobs->attachRunning();  // runs started before the app was reopened
  connect(m_sweeps, &SweepRunners::trialChanged, this,
          [this](const QString&, const QString& line) { statusBar()->showMessage(line, 5000); });
  connect(m_sweeps, &SweepRunners::sweepFinished, this, [this](const QString& dir, const QString& why) {
    statusBar()->showMessage(tr("Sweep %1 ended: %2.").arg(QFileInfo(dir).fileName(), why), 10000);
  });
  m_sweeps->resumeInterrupted();  // sweeps that were running when the app went away
  connect(m_setup, &SetupPage::sweepStartRequested, this,
          [this](const QString& file, int slotCount, int pack, const QMap<QString, int>& hosts) {
            startSweep(file, slotCount, pack, hosts);
          });
  m_runs->setRunsRoot(options.runsRoot);
  openConfig(options.configPath);
  if (!options.openRun.isEmpty()) openFolder(options.openRun);
  if (!options.compareRuns.isEmpty()) compareRuns(options.compareRuns);

  QSettings settings;
  const WindowState state({.window = this, .splitter = m_splitter, .pages = m_pages, .runList = m_runList});
  state.restoreLayout(settings);
  state.reopenFolders(settings);
  if (options.openRun.isEmpty() && options.compareRuns.isEmpty()) restoreShown(settings);
  updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::restoreShown(QSettings& settings) {
  const WindowState::Shown last = WindowState::lastShown(settings);
  // The sweep shown last, where it still is (followed again: it may still be running).
  if (const QString sweep = settings.value(kShownSweepKey).toString();
      isSweepFolder(QFile::encodeName(sweep).toStdString()))
    m_sweep->showSweep(sweep);
  if (!last.run.isEmpty()) showRun(last.run);
  if (last.compared.size() >= 2) m_compare->compareRuns(last.compared);
  QWidget* page = m_pages->widget(last.page);
  if (page == m_compare && m_comparison->runDirs().isEmpty())
    page = m_session ? static_cast<QWidget*>(m_monitor) : static_cast<QWidget*>(m_setup);
  if (page == m_monitor && !m_session) page = m_setup;
  if (page == m_sweep && m_sweep->sweepDir().isEmpty()) page = m_setup;
  m_pages->setCurrentWidget(page != nullptr ? page : m_setup);
}

void MainWindow::openHosts() {
  QSettings settings;
  HostsDialog dialog(settings, this);
  QFile helper(QDir(m_remotePayloadDir).filePath("traindeck-remote.sh"));
  if (helper.open(QIODevice::ReadOnly)) dialog.setProbeScript(helper.readAll());
  dialog.exec();
  refreshHosts();
}

void MainWindow::fetchFromHost(FetchKind kind) {
  if (!m_session) return;
  QString error;
  RemoteFetch* fetch = m_jobs->fetch(m_session->runDir(), kind, &error);
  if (fetch == nullptr) return tellProblem(tr("Cannot fetch"), error);
  const QString what = kind == FetchKind::Checkpoint ? tr("checkpoint") : tr("Hugging Face export");
  statusBar()->showMessage(tr("Fetching the %1…").arg(what));
  connect(fetch, &RemoteFetch::progress, this, [this, what](const QString& file, qint64 done, qint64 total) {
    statusBar()->showMessage(
        tr("Fetching the %1: %2 (%3 of %4 MB)").arg(what, file).arg(done >> 20).arg(std::max<qint64>(total >> 20, 1)));
  });
  connect(fetch, &RemoteFetch::finished, this, [this, what](const QString& dir, const QString& why) {
    if (!why.isEmpty()) return tellProblem(tr("Fetch failed"), why);
    statusBar()->showMessage(tr("The %1 is in %2").arg(what, QDir::toNativeSeparators(dir)), 15000);
  });
}

QMenu* MainWindow::runMenu(const QStringList& runDirs) {
  return m_runMenu->menuFor(runDirs);
}

QString MainWindow::renameRun(const QString& runDir, const QString& name) {
  return m_runMenu->rename(runDir, name);
}

void MainWindow::trashRuns(const QStringList& runDirs) {
  m_runMenu->trash(runDirs);
}

void MainWindow::releaseShownRun(const QString& runDir) {
  if (!m_session || m_session->runDir() != runDir) return;
  m_monitor->clear();
  m_logs->clear();
  disconnect(m_session.get(), nullptr, this, nullptr);
  m_session.reset();
  m_runList->selectRun(QString());
  m_shownStatus.clear();
  m_runLabel->clear();
}

void MainWindow::setCheckpointsKeptHere(int keep) {
  JobController::RemoteOptions remote = m_jobs->remoteOptions();
  remote.checkpointsKeptHere = std::max(0, keep);
  m_jobs->setRemoteOptions(remote);  // for the remote runs started or attached from now on
  QSettings().setValue(kCheckpointsKeptHereKey, remote.checkpointsKeptHere);
  statusBar()->showMessage(
      tr("Remote runs started from now on keep their newest %1 checkpoints here").arg(remote.checkpointsKeptHere),
      4000);
}

QMenu* MainWindow::columnMenu() {
  return m_runList->columnMenu();
}

void MainWindow::showLink(const QString& runDir) {
  // The status bar says a lost link while it lasts; the shown run's header and progress too.
  const QString shown = currentRunDir();
  m_linkStatus->linkChanged(runDir, m_jobs->jobFor(runDir), shown);
  if (m_session && runDir == shown) {
    showRunLabel(shownSummary());
    showSessionMetrics();
  }
}

void MainWindow::refreshHosts() {
  QSettings settings;
  m_setup->setHosts(HostStore::load(settings), HostStore::probes(settings));
}

void MainWindow::buildActions() {
  QToolBar* bar = addToolBar(tr("Run"));
  bar->setObjectName("runToolBar");
  const auto add = [&](const QString& text, const QKeySequence& keys, const QString& tip, auto slot) {
    QAction* action = bar->addAction(text, this, slot);
    action->setShortcut(keys);
    action->setToolTip(tip + " (" + keys.toString(QKeySequence::NativeText) + ")");
    return action;
  };
  QAction* newJob =
      add(tr("New"), QKeySequence::New, tr("A new job from the preset chooser on the Setup page"), [this] {
        m_pages->setCurrentWidget(m_setup);
        m_setup->choosePreset("demo-cpu");
      });
  QAction* open = add(tr("Open…"), QKeySequence::Open, tr("Open a job's YAML file"), [this] {
    m_pages->setCurrentWidget(m_setup);
    m_setup->openFile();
  });
  auto* openFolderAction = new QAction(tr("Open folder…"), this);
  openFolderAction->setObjectName("openFolderAction");
  openFolderAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  openFolderAction->setStatusTip(tr("List the runs in a folder, TrainDeck's and other tools', beside the runs root"));
  connect(openFolderAction, &QAction::triggered, this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Open a folder of runs"));
    if (!folder.isEmpty()) openFolder(folder);
  });
  auto* openSweep = new QAction(tr("Open sweep…"), this);
  openSweep->setObjectName("openSweepAction");
  openSweep->setStatusTip(tr("Show a sweep's trials on the Sweep page: pick its folder, the one holding sweep.json"));
  connect(openSweep, &QAction::triggered, this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Open a sweep folder (it holds sweep.json)"));
    if (!folder.isEmpty()) showSweep(folder);
  });
  // Opened folders are listed again at each start until closed here.
  auto* closeFolders = new QAction(tr("Close opened folders"), this);
  closeFolders->setObjectName("closeOpenedFoldersAction");
  closeFolders->setStatusTip(tr("List the runs root's runs only, now and at the next start"));
  closeFolders->setEnabled(false);
  connect(closeFolders, &QAction::triggered, m_runs, &RunListModel::closeOpenedFolders);
  connect(m_runs, &RunListModel::openedFoldersChanged, closeFolders,
          [this, closeFolders] { closeFolders->setEnabled(!m_runs->openedFolders().isEmpty()); });
  QAction* save = add(tr("Save…"), QKeySequence::Save, tr("Save the job as YAML"),
                      [this] { m_setup->saveFile(m_setup->filePath()); });
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
  m_fetchCheckpoint = bar->addAction(tr("Fetch checkpoint"), this, [this] { fetchFromHost(FetchKind::Checkpoint); });
  m_fetchCheckpoint->setObjectName("fetchCheckpointAction");
  m_fetchCheckpoint->setToolTip(tr("Copy the remote run's newest complete checkpoint into its folder here"));
  m_fetchExport = bar->addAction(tr("Fetch HF export"), this, [this] { fetchFromHost(FetchKind::HfExport); });
  m_fetchExport->setObjectName("fetchExportAction");
  m_fetchExport->setToolTip(
      tr("Export the remote run's newest checkpoint for Hugging Face there and copy it into its folder here"));
  bar->addSeparator();
  QAction* hosts = bar->addAction(tr("Hosts…"), this, &MainWindow::openHosts);
  hosts->setObjectName("hostsAction");
  // Ctrl+Q closes the window (runs go on; reopening re-attaches).
  auto* quit = new QAction(tr("Quit"), this);
  quit->setObjectName("quitAction");
  quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
  quit->setShortcutContext(Qt::ApplicationShortcut);
  connect(quit, &QAction::triggered, this, &QWidget::close);
  addAction(quit);
  hosts->setToolTip(tr("SSH hosts for remote runs: add, edit, test a connection"));
  newJob->setObjectName("newAction");
  open->setObjectName("openAction");
  save->setObjectName("saveAction");
  buildMenus({newJob, open, openFolderAction, openSweep, closeFolders, save, hosts, quit});
}

void MainWindow::buildMenus(const QList<QAction*>& file) {
  // The toolbar's actions in the usual menus, with the standard shortcuts they already have.
  QMenu* fileMenu = menuBar()->addMenu(tr("&File"));
  for (QAction* a : file) {
    if (a->objectName() == "hostsAction" || a->objectName() == "quitAction") fileMenu->addSeparator();
    fileMenu->addAction(a);
  }
  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* copyConfig = edit->addAction(tr("Copy the job as YAML"), this, [this] {
    QGuiApplication::clipboard()->setText(m_setup->yamlText());
    statusBar()->showMessage(tr("The job's YAML is on the clipboard"), 3000);
  });
  copyConfig->setObjectName("copyConfigAction");
  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (int i = 0; i < m_pages->count(); ++i) {
    QAction* page = view->addAction(m_pages->tabText(i).remove('&'), this, [this, i] { m_pages->setCurrentIndex(i); });
    page->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
    page->setObjectName("viewPage" + QString::number(i + 1));
  }
  QMenu* run = menuBar()->addMenu(tr("&Run"));
  for (QAction* a : {m_start, m_stop, m_kill}) run->addAction(a);
  run->addSeparator();
  for (QAction* a : {m_compareAction, m_fetchCheckpoint, m_fetchExport}) run->addAction(a);
  QAction* keep = run->addAction(tr("Checkpoints kept here…"), this, [this] {
    bool ok = false;
    const int k = QInputDialog::getInt(
        this, tr("Checkpoints kept here"),
        tr("A remote run's newest complete checkpoints are copied to this computer as it trains, so the last one is "
           "here when its host goes. How many to keep per run (0: none copied unasked)?"),
        m_jobs->remoteOptions().checkpointsKeptHere, 0, 100, 1, &ok);
    if (ok) setCheckpointsKeptHere(k);
  });
  keep->setObjectName("checkpointsKeptHereAction");
  m_help = new HelpMenu(menuBar(), m_presetDirs, this,
                        [this](const QString& title, const QString& text) { tellProblem(title, text); });
}

QString MainWindow::docsPath() const {
  return m_help->docsPath();
}

QString MainWindow::tutorialPath() const {
  return m_help->tutorialPath();
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
  m_start->setEnabled(m_setup->isStartable());
  m_start->setStatusTip(m_setup->isStartable() ? QString() : tr("Fix the problems on the Setup page to start"));
  const RunActions can = m_session ? m_runMenu->actionsFor(m_session->runDir(), shownSummary()) : RunActions{};
  m_stop->setEnabled(can.stop);
  m_kill->setEnabled(can.kill);
  m_stop->setStatusTip(can.whyNoStop);
  m_kill->setStatusTip(can.whyNoStop);
  for (QAction* fetch : {m_fetchCheckpoint, m_fetchExport}) {
    fetch->setEnabled(can.fetch);
    fetch->setStatusTip(can.fetch ? QString() : tr("Only a remote run's files are elsewhere"));
  }
  const qsizetype selected = m_runList->selectedRunDirs().size();
  m_compareAction->setEnabled(selected >= 2);
  m_compareAction->setStatusTip(selected >= 2 ? QString()
                                              : tr("Select two runs or more (Ctrl- or Shift-click) to compare them"));
}

void MainWindow::compareRuns(const QStringList& runDirs) {
  const QStringList dirs = runDirs.isEmpty() ? m_runList->selectedRunDirs() : runDirs;
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

void MainWindow::showSweep(const QString& sweepDir) {
  m_sweep->showSweep(sweepDir);
  m_pages->setCurrentWidget(m_sweep);
}

void MainWindow::openFolder(const QString& folder) {
  if (isSweepFolder(QFile::encodeName(folder).toStdString())) return showSweep(folder);
  const RunListModel::FolderRuns found = m_runs->openFolder(folder);
  if (!found.problem.isEmpty()) return tellProblem(tr("No runs"), found.problem);
  if (found.runs.size() == 1) return showRun(found.runs.front());
  compareRuns(found.runs.mid(0, kOpenedFolderCompared));
  statusBar()->showMessage(tr("%1 runs found in %2, listed; %3 of them on Compare")
                               .arg(found.runs.size())
                               .arg(QDir::toNativeSeparators(folder))
                               .arg(std::min<qsizetype>(found.runs.size(), kOpenedFolderCompared)),
                           10000);
}

void MainWindow::showRun(const QString& runDir) {
  const QString dir = QFileInfo(runDir).absoluteFilePath();
  if (m_session && m_session->runDir() == dir) return;
  // The pages let go of the old run's stores (and their hold on its session) first.
  m_monitor->clear();
  m_logs->clear();
  if (m_session) disconnect(m_session.get(), nullptr, this, nullptr);
  m_session = m_registry->session(dir);
  const RunSummary summary = shownSummary();
  m_shownStatus = statusOf(summary);
  showRunLabel(summary);
  connect(m_session.get(), &RunSession::metricsChanged, this, &MainWindow::showSessionMetrics);
  connect(m_session.get(), &RunSession::logsChanged, this, [this] { m_logs->showLines(m_session->logs(), m_session); });
  // A session the Compare page already holds has its data already: show it now.
  showSessionMetrics();
  m_logs->showLines(m_session->logs(), m_session);
  // A run that goes on without a job here (started by the CLI, or outside the runs root).
  if (summary.isLive() && !m_jobs->jobFor(dir)) m_jobs->attach(dir);
  m_bootstrap->follow(m_jobs->jobFor(dir));
  m_runList->selectRun(dir);
  showLink(dir);
  if (m_pages->currentWidget() == m_setup) m_pages->setCurrentWidget(m_monitor);
  showFailureIfAny();
  updateActions();
  if (m_session->isImported())
    statusBar()->showMessage(tr("%1's run: TrainDeck reads it, and reads it again as it grows")
                                 .arg(m_session->sourceBadge()),
                             6000);
}

RunSummary MainWindow::shownSummary() const {
  // The list's row (it follows run.json), else run.json itself.
  const int row = m_runs->rowOfPath(m_session->runDir());
  return row >= 0 ? m_runs->runAt(row) : m_session->summary();
}

QString MainWindow::statusOf(const RunSummary& summary) const {
  // One answer for the header, the progress text and the list: the list's.
  return m_runs->statusOf(summary);
}

void MainWindow::showRunLabel(const RunSummary& summary) {
  // While a remote run's link is down the header says so in place of "running": nothing it shows
  // is news until the link is back.
  const Job* job = shownJob();
  QString status =
      job && job->linkLost()
          ? QStringLiteral("<span style=\"color:#c0392b\"><b>%1</b></span>").arg(job->linkText().toHtmlEscaped())
          : m_shownStatus.toHtmlEscaped();
  // What the place says while the run is on (a Slurm job's id and queue state), in the header.
  if (job && job->isActive() && !job->placeText().isEmpty()) status += " — " + job->placeText().toHtmlEscaped();
  const QString where = m_runs->whereOf(summary);
  // A long id is cut (whole in the tooltip); the label never widens the window (its size policy).
  const QString id =
      summary.id.size() > kMaxHeaderIdChars ? summary.id.left(kMaxHeaderIdChars - 1) + QChar(0x2026) : summary.id;
  m_runLabel->setText(tr("Run <b>%1</b> · %2 · %3 · %4")
                          .arg(id.toHtmlEscaped(), status,
                               where.isEmpty() ? tr("this machine") : tr("on %1").arg(where.toHtmlEscaped()),
                               m_session->runDir().toHtmlEscaped()));
  m_runLabel->setToolTip(summary.name.isEmpty() ? summary.id : summary.name + "\n" + summary.id);
}

void MainWindow::showShownRunStatus() {
  if (!m_session) return;
  // Every row's change comes here: only a new status of the run shown is drawn again.
  const RunSummary summary = shownSummary();
  const QString status = statusOf(summary);
  if (status == m_shownStatus) return;
  m_shownStatus = status;
  showRunLabel(summary);
  showSessionMetrics();
}

void MainWindow::showSessionMetrics() {
  MetricsView view = metricsViewOf(m_session->metrics(), m_shownStatus, m_session);
  view.imported = m_session->isImported();
  const Job* job = shownJob();
  view.linkLost = job && job->linkLost() && job->isActive();
  m_monitor->showMetrics(view);
}

void MainWindow::showFailureIfAny() {
  if (!m_session) return;
  const RunSummary summary = m_session->summary();
  if (!summary.hasStatus(RunStatus::Failed)) return;
  // A failure that was not a rank's (a bad spec, no free port) shows rank 0's log.
  m_logs->showFailure(std::max(0, summary.failedRank), summary.exitReason);
}

QString MainWindow::startSweep(const QString& sweepFile, int localSlots, int pack,
                               const QMap<QString, int>& hostSlots) {
  std::vector<SweepPlace> places{{tr("the job's target"), std::nullopt, localSlots, pack}};
  QSettings settings;
  const QList<HostEntry> saved = HostStore::load(settings);
  for (auto it = hostSlots.cbegin(); it != hostSlots.cend(); ++it) {
    const auto host =
        std::find_if(saved.cbegin(), saved.cend(), [&](const HostEntry& h) { return h.name == it.key(); });
    if (host == saved.cend()) {
      tellProblem(tr("Cannot run the sweep"), tr("The host %1 is not saved any more (File > Hosts…).").arg(it.key()));
      return {};
    }
    places.push_back({host->name, targetOn(*host, TargetConfig{}), it.value()});
  }
  QString error;
  const QString dir = m_sweeps->start(QFileInfo(sweepFile).absoluteFilePath(), std::move(places), &error);
  if (dir.isEmpty()) {
    tellProblem(tr("Cannot run the sweep"), error);
    return {};
  }
  statusBar()->showMessage(tr("Sweep running in %1").arg(dir), 5000);
  showSweep(dir);
  return dir;
}

QString MainWindow::startRun(const QStringList& extraArgs) {
  if (!m_setup->isStartable()) return {};
  // Several runs at once are fine while the machine has room for them; past that, ask.
  QSettings settings;
  const int localGpus = m_setup->thisMachine() ? m_setup->thisMachine()->cudaDevices : 0;
  if (const QString room = m_jobs->roomProblem(m_setup->config(), localGpus, settings); !room.isEmpty()) {
    statusBar()->showMessage(room, 10000);
    if (isVisible() && QApplication::activeModalWidget() == nullptr &&
        QMessageBox::question(this, tr("Start another run?"), room + "\n\n" + tr("Start it anyway?")) !=
            QMessageBox::Yes)
      return {};
  }
  // The job's file as it is, or the run's own copy of the edits, which the controller writes beside
  // the run: the file is written only when the user says so.
  const std::optional<SetupPage::JobToStart> job = m_setup->jobToStart();
  if (!job) return {};
  const JobController::Started started = m_jobs->start(m_setup->config(), job->file, job->text, extraArgs);
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
  return savePageScreenshots(this, m_pages, m_compare, m_comparison->size() > 0, folder);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  WindowState({.window = this, .splitter = m_splitter, .pages = m_pages, .runList = m_runList})
      .save(settings, currentRunDir(), m_comparison->runDirs());
  settings.setValue(kShownSweepKey, m_sweep->sweepDir());
  // A run started here goes on without the app (its supervisor was started detached);
  // reopening the app and selecting it re-attaches to it.
  QMainWindow::closeEvent(event);
}

}  // namespace traindeck
