// Selecting a run takes its shared session from the registry; the JobController re-attaches at
// start-up to the runs still going, so Stop and Kill work after the app was closed and reopened.
// Start hands the Setup page's job to the JobController, which picks the kind of job.
#include "main_window.h"

#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QToolBar>
#include <QUrl>
#include <QVBoxLayout>

#include "bootstrap_view.h"
#include "compare_page.h"
#include "config/devices.h"
#include "host_key_prompt.h"
#include "hosts_dialog.h"
#include "interactive_prompt_dialog.h"
#include "jobs/checkpoint_sync.h"
#include "jobs/job_controller.h"
#include "jobs/local_devices.h"
#include "jobs/machine_room.h"
#include "jobs/probed_devices.h"
#include "logs_page.h"
#include "monitor_page.h"
#include "run_filter_model.h"
#include "run_menu.h"
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
  m_runMenu = new RunMenu(m_jobs, m_runs, this,
                          {.showRun = [this](const QString& dir) { showRun(dir); },
                           .compare = [this](const QStringList& dirs) { compareRuns(dirs); },
                           .tellProblem = [this](const QString& title, const QString& text) { tellProblem(title, text); },
                           .note = [this](const QString& text) { statusBar()->showMessage(text, 3000); },
                           .releaseRun = [this](const QString& dir) { releaseShownRun(dir); },
                           .renamed = [this] { showShownRunStatus(); }});
  m_splitter = new QSplitter(Qt::Horizontal, this);

  auto* left = new QWidget(m_splitter);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  leftLayout->addWidget(new QLabel(tr("<b>Runs</b>"), left));
  auto* filters = new QHBoxLayout;
  auto* filterText = new QLineEdit(left);
  filterText->setObjectName("runFilter");
  filterText->setPlaceholderText(tr("Filter by name or id"));
  filterText->setClearButtonEnabled(true);
  auto* filterStatus = new QComboBox(left);
  filterStatus->setObjectName("statusFilter");
  filterStatus->addItem(tr("every status"), QString());
  for (const char* status : {"running", "finished", "failed", "stopped", "killed", "requeued", "starting"})
    filterStatus->addItem(QString::fromLatin1(status), QString::fromLatin1(status));
  filters->addWidget(filterText, 1);
  filters->addWidget(filterStatus);
  leftLayout->addLayout(filters);
  m_runFilter = new RunFilterModel(this);
  m_runFilter->setSourceModel(m_runs);
  connect(filterText, &QLineEdit::textChanged, m_runFilter, &RunFilterModel::setText);
  connect(filterStatus, &QComboBox::currentIndexChanged, this,
          [this, filterStatus] { m_runFilter->setStatus(filterStatus->currentData().toString()); });
  m_runTable = new QTableView(left);
  m_runTable->setObjectName("runList");
  m_runTable->setModel(m_runFilter);
  m_runTable->setSortingEnabled(true);
  m_runTable->sortByColumn(RunListModel::CreatedColumn, Qt::DescendingOrder);  // newest first
  m_runTable->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_runTable->horizontalHeader(), &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
    QMenu* menu = columnMenu();
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(m_runTable->horizontalHeader()->mapToGlobal(at));
  });
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
  m_logs = new LogsPage(m_pages);
  m_pages->addTab(m_setup, tr("&Setup"));
  m_pages->addTab(m_monitor, tr("&Monitor"));
  m_compare = new ComparePage(m_comparison.get(), m_comparisonSets.get(), m_pages);
  m_pages->addTab(m_logs, tr("&Logs"));
  m_pages->addTab(m_compare, tr("&Compare"));
  m_bootstrap = new BootstrapView(right);
  rightLayout->addWidget(m_bootstrap);
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
  // The shown run's status, wherever it is said, follows the list's.
  connect(m_runs, &QAbstractItemModel::dataChanged, this, &MainWindow::showShownRunStatus);
  connect(m_runs, &QAbstractItemModel::rowsInserted, this, &MainWindow::showShownRunStatus);
  connect(m_runs, &QAbstractItemModel::modelReset, this, &MainWindow::showShownRunStatus);
  m_runTable->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_runTable, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
    const QStringList dirs = selectedRunDirs();
    if (dirs.isEmpty()) return;
    QMenu* menu = runMenu(dirs);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(m_runTable->viewport()->mapToGlobal(at));
  });
  connect(m_runs, &QAbstractItemModel::rowsInserted, m_runTable, [this] { fitRunColumns(); });
  connect(m_runs, &QAbstractItemModel::dataChanged, m_runTable, [this] { fitRunColumns(); });
  // The run shown is the one highlighted, also when its row comes after it is shown (a start).
  connect(m_runs, &QAbstractItemModel::rowsInserted, this, &MainWindow::selectShownRow);
  m_linkStatus = new QLabel(this);
  m_linkStatus->setObjectName("linkStatus");
  m_linkStatus->setStyleSheet(QStringLiteral("color: #c0392b; font-weight: bold"));
  m_linkStatus->hide();
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
  m_runs->setRunsRoot(options.runsRoot);
  m_runs->setConfigColumns(QSettings().value("runList/configColumns").toStringList());
  openConfig(options.configPath);
  if (!options.openRun.isEmpty()) showRun(options.openRun);
  if (!options.compareRuns.isEmpty()) compareRuns(options.compareRuns);

  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
  if (!m_splitter->restoreState(settings.value("window/splitter").toByteArray())) m_splitter->setSizes({260, 1000});
  if (options.openRun.isEmpty() && options.compareRuns.isEmpty()) restoreSelection(settings);
  updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::restoreSelection(QSettings& settings) {
  // The run shown and the runs compared when the window closed, where they still are; the page
  // too, unless it would open empty (Compare with nothing to compare).
  const QString shown = settings.value("window/shownRun").toString();
  if (!shown.isEmpty() && QFileInfo::exists(shown + "/run.json")) showRun(shown);
  QStringList compared;
  for (const QString& dir : settings.value("window/comparedRuns").toStringList())
    if (QFileInfo::exists(dir + "/run.json")) compared << dir;
  if (compared.size() >= 2) m_compare->compareRuns(compared);
  QWidget* page = m_pages->widget(settings.value("window/page", 0).toInt());
  if (page == m_compare && m_comparison->runDirs().isEmpty())
    page = m_session ? static_cast<QWidget*>(m_monitor) : static_cast<QWidget*>(m_setup);
  if (page == m_monitor && !m_session) page = m_setup;
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
  // The list's own columns to show or hide, the config keys shown as columns, and one more.
  auto* menu = new QMenu(this);
  menu->setObjectName("columnMenu");
  for (int column = 0; column < m_runs->columnCount(); ++column) {
    QAction* a = menu->addAction(m_runs->headerData(column, Qt::Horizontal).toString());
    a->setCheckable(true);
    a->setChecked(!m_runTable->isColumnHidden(column));
    a->setObjectName("column:" + m_runs->headerData(column, Qt::Horizontal).toString());
    const bool configColumn = column >= RunListModel::ColumnCount;
    connect(a, &QAction::toggled, this, [this, column, configColumn](bool on) {
      if (configColumn && !on) {
        QStringList keys = m_runs->configColumns();
        keys.removeAt(column - RunListModel::ColumnCount);
        return showConfigColumns(keys);
      }
      m_runTable->setColumnHidden(column, !on);
    });
  }
  menu->addSeparator();
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

void MainWindow::showConfigColumns(const QStringList& keys) {
  // A reset: the hidden columns and the sort are set again, and the shown run selected again.
  QList<int> hidden;
  for (int c = 0; c < RunListModel::ColumnCount; ++c)
    if (m_runTable->isColumnHidden(c)) hidden << c;
  const QString shown = currentRunDir();
  m_runs->setConfigColumns(keys);
  for (int c : hidden) m_runTable->setColumnHidden(c, true);
  QSettings().setValue("runList/configColumns", keys);
  if (!shown.isEmpty()) {
    const int row = m_runs->rowOfPath(shown);
    const int viewRow = row >= 0 ? m_runFilter->mapFromSource(m_runs->index(row, 0)).row() : -1;
    if (viewRow >= 0) m_runTable->selectRow(viewRow);
  }
  fitRunColumns();
}

void MainWindow::fitRunColumns() {
  // Each column as wide as its contents, but none wider than kMaxColumnChars: a long name is
  // elided (whole in its tooltip), and the columns after it stay in view.
  m_runTable->resizeColumnsToContents();
  const int widest = m_runTable->fontMetrics().averageCharWidth() * kMaxColumnChars;
  for (int c = 0; c < m_runTable->model()->columnCount(); ++c)
    if (m_runTable->columnWidth(c) > widest) m_runTable->setColumnWidth(c, widest);
}

void MainWindow::selectShownRow() {
  if (!m_session) return;
  const int row = m_runs->rowOfPath(m_session->runDir());
  const int viewRow = row >= 0 ? m_runFilter->mapFromSource(m_runs->index(row, 0)).row() : -1;
  if (viewRow >= 0 && m_runTable->currentIndex().row() != viewRow) m_runTable->selectRow(viewRow);
  // Not listed yet (its folder is not there yet): no other run stays highlighted meanwhile.
  if (viewRow < 0) m_runTable->selectionModel()->clear();
}

void MainWindow::showLink(const QString& runDir) {
  // A lost link is said in the status bar (for the run shown, else for another run) while it
  // lasts, and the shown run's header and progress say it too.
  const Job* job = m_jobs->jobFor(runDir);
  if (job && job->linkLost())
    m_lostLinks[runDir] = job->linkText();
  else
    m_lostLinks.remove(runDir);
  const QString shown = currentRunDir();
  QString text = m_lostLinks.value(shown);
  if (text.isEmpty() && !m_lostLinks.isEmpty())
    text = tr("%1: %2").arg(QFileInfo(m_lostLinks.firstKey()).fileName(), m_lostLinks.first());
  m_linkStatus->setText(text);
  m_linkStatus->setVisible(!text.isEmpty());
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
  buildMenus({newJob, open, save, hosts, quit});
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
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* tutorial = help->addAction(tr("Tutorial"), this, [this] { openDoc(tutorialPath(), "docs/tutorial.md"); });
  tutorial->setShortcut(QKeySequence::HelpContents);  // F1: the first hour, step by step
  tutorial->setObjectName("tutorialAction");
  QAction* docs = help->addAction(tr("Documentation (README)"), this, [this] { openDocs(); });
  docs->setObjectName("docsAction");
  help->addAction(tr("About TrainDeck"), this, [this] {
    QMessageBox::about(this, tr("About TrainDeck"),
                       tr("TrainDeck %1: train GPT-2-family models on many devices and watch them train.")
                           .arg(QCoreApplication::applicationVersion()));
  });
}

namespace {
// A file of the docs (README.md, docs/tutorial.md) in the source tree (resources/presets/../../)
// or where it is installed (share/traindeck/presets/../../doc/TrainDeck/); empty when in neither.
QString findDoc(const QStringList& presetDirs, const QString& relative) {
  for (const QString& presets : presetDirs)
    for (const QString& candidate : {presets + "/../../" + relative, presets + "/../../doc/TrainDeck/" + relative})
      if (QFileInfo::exists(candidate)) return QFileInfo(candidate).absoluteFilePath();
  return {};
}
}  // namespace

QString MainWindow::docsPath() const {
  return findDoc(m_presetDirs, QStringLiteral("README.md"));
}

QString MainWindow::tutorialPath() const {
  return findDoc(m_presetDirs, QStringLiteral("docs/tutorial.md"));
}

void MainWindow::openDocs() {
  openDoc(docsPath(), QStringLiteral("README.md"));
}

void MainWindow::openDoc(const QString& path, const QString& relative) {
  if (path.isEmpty())
    return tellProblem(tr("Not found"), tr("%1 was not found beside the app's presets (%2); it is %1 in TrainDeck's "
                                           "sources and in share/doc/TrainDeck once installed.")
                                            .arg(relative, QDir::toNativeSeparators(m_presetDirs.join(", "))));
  // The file is here; only a program to show it may be missing (xdg-open on a bare desktop).
  if (!QDesktopServices::openUrl(QUrl::fromLocalFile(path)))
    tellProblem(tr("No program opens it"), tr("No program here opens %1 (is xdg-open installed?). Open it in any text "
                                              "editor or browser: %2")
                                               .arg(QFileInfo(path).fileName(), QDir::toNativeSeparators(path)));
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
  const qsizetype selected = selectedRunDirs().size();
  m_compareAction->setEnabled(selected >= 2 && selected <= Comparison::kMaxRuns);
  m_compareAction->setStatusTip(
      selected >= 2 ? QString()
                    : tr("Select 2 to %1 runs (Ctrl- or Shift-click) to compare them").arg(Comparison::kMaxRuns));
}

QStringList MainWindow::selectedRunDirs() const {
  QStringList dirs;
  for (const QModelIndex& index : m_runTable->selectionModel()->selectedRows())
    dirs << m_runs->runAt(m_runFilter->mapToSource(index).row()).path;
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
  selectShownRow();
  showLink(dir);
  if (m_pages->currentWidget() == m_setup) m_pages->setCurrentWidget(m_monitor);
  showFailureIfAny();
  updateActions();
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
  const QString status =
      job && job->linkLost()
          ? QStringLiteral("<span style=\"color:#c0392b\"><b>%1</b></span>").arg(job->linkText().toHtmlEscaped())
          : m_shownStatus;
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
  const Job* job = shownJob();
  view.linkLost = job && job->linkLost() && job->isActive();
  m_monitor->showMetrics(view);
}

void MainWindow::runSelected() {
  const int row = m_runFilter->mapToSource(m_runTable->currentIndex()).row();
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
  // Several runs at once are fine while the machine has room for them; past that, ask.
  if (const QString room = roomProblem(m_setup->config()); !room.isEmpty()) {
    statusBar()->showMessage(room, 10000);
    if (isVisible() && QApplication::activeModalWidget() == nullptr &&
        QMessageBox::question(this, tr("Start another run?"), room + "\n\n" + tr("Start it anyway?")) !=
            QMessageBox::Yes)
      return {};
  }
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

QString MainWindow::roomProblem(const RunConfig& config) const {
  if (config.target.kind == TargetKind::Local) {  // its GPUs as its trainer says them (none while not known)
    const int gpus = m_setup->thisMachine() ? m_setup->thisMachine()->cudaDevices : 0;
    return machineRoomProblem(m_jobs->liveConfigs(), config,
                              Machine{tr("this machine"), thisMachineCpu(), QThread::idealThreadCount(), gpus});
  }
  // A host as last probed; one never probed is judged by its first start's probe alone.
  const QString spec = QString::fromStdString(config.target.host);
  QSettings settings;
  const std::optional<HostStore::StoredProbe> probe = HostStore::probeFor(settings, spec);
  if (!probe) return {};
  return machineRoomProblem(m_jobs->liveConfigs(spec), config, hostMachine(probe->probe, spec));
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
  settings.setValue("window/shownRun", m_session ? m_session->runDir() : QString());
  settings.setValue("window/comparedRuns", m_comparison->runDirs());
  // A run started here goes on without the app (its supervisor was started detached);
  // reopening the app and selecting it re-attaches to it.
  QMainWindow::closeEvent(event);
}

}  // namespace traindeck
