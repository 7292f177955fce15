// Decisions live in app/ (runActions, renameRun, moveRunsToTrash, JobController); this file asks
// the user and shows the result.
#include "run_menu.h"

#include <algorithm>

#include <QApplication>
#include <QClipboard>
#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QUrl>

#include "continue_dialog.h"
#include "host_store.h"
#include "jobs/checkpoint_sync.h"
#include "jobs/job_controller.h"
#include "runlog/run_paths.h"
#include "runs/comparison.h"
#include "runs/run_folders.h"
#include "runs/run_list_model.h"

namespace traindeck {

RunMenu::RunMenu(JobController* jobs, RunListModel* runs, QWidget* window, Hooks hooks)
    : QObject(window), m_jobs(jobs), m_runs(runs), m_window(window), m_hooks(std::move(hooks)) {}

RunActions RunMenu::actionsFor(const QString& runDir, const RunSummary& run) const {
  return runActions({.status = run.status,
                     .remote = !run.remoteSpec.isEmpty(),
                     .hasCheckpoint = !CheckpointSync::newestCheckpoint(runDir).isEmpty(),
                     .job = m_jobs->jobFor(runDir),
                     .imported = m_runs->isImported(runDir)});
}

QMenu* RunMenu::menuFor(const QStringList& dirs) {
  auto* menu = new QMenu(m_window);
  menu->setObjectName("runMenu");
  const QString dir = dirs.front();
  const int row = m_runs->rowOfPath(dir);
  const RunSummary run = row >= 0 ? m_runs->runAt(row) : readRunSummary(dir);
  const RunActions can = actionsFor(dir, run);
  const auto add = [&](const QString& name, const QString& text, bool enabled, auto slot) {
    QAction* a = menu->addAction(text, this, slot);
    a->setObjectName(name);
    a->setEnabled(enabled);
    return a;
  };
  // One Continue… for every run: a run of this machine resumes in its folder, a remote one asks
  // where it goes on.
  add("continueRun", tr("Continue…"), dirs.size() == 1 && can.continueRun, [this, dir, can] {
    if (can.continueAsksWhere) return continueElsewhere(dir);
    const JobController::Started started = m_jobs->continueRun(dir);
    if (!started.error.isEmpty()) return m_hooks.tellProblem(tr("Cannot continue"), started.error);
    m_runs->rescan();
    m_hooks.showRun(dir);
  })->setStatusTip(can.whyNoContinue);
  add("compareRuns", tr("Compare"), dirs.size() >= 2,
      [this, dirs] { m_hooks.compare(dirs); });
  menu->addSeparator();
  add("renameRun", tr("Rename…"), dirs.size() == 1 && can.rename, [this, dir, run] {
    bool ok = false;
    const QString name =
        QInputDialog::getText(m_window, tr("Rename the run"), tr("Name:"), QLineEdit::Normal, run.name, &ok);
    if (!ok) return;
    if (const QString why = rename(dir, name); !why.isEmpty()) m_hooks.tellProblem(tr("Cannot rename"), why);
  });
  add("openRunFolder", tr("Open folder"), true, [dir] { QDesktopServices::openUrl(QUrl::fromLocalFile(dir)); });
  add("copyRunConfig", tr("Copy config"), QFileInfo::exists(QDir(dir).filePath(run_file::kConfig)), [this, dir] {
    QFile config(QDir(dir).filePath(run_file::kConfig));
    if (!config.open(QIODevice::ReadOnly)) return m_hooks.tellProblem(tr("Cannot copy"), config.errorString());
    QGuiApplication::clipboard()->setText(QString::fromUtf8(config.readAll()));
    m_hooks.note(tr("The run's config.yaml is on the clipboard"));
  });
  menu->addSeparator();
  const bool anyImported = std::any_of(dirs.begin(), dirs.end(), [this](const QString& d) { return m_runs->isImported(d); });
  add("deleteRuns", tr("Move to trash…"), can.trash && !anyImported, [this, dirs] { trash(dirs); })
      ->setStatusTip(anyImported ? tr("Another tool's run: TrainDeck only reads it") : QString());
  return menu;
}

QString RunMenu::rename(const QString& runDir, const QString& name) {
  const QString why = renameRun(runDir, name);
  if (!why.isEmpty()) return why;
  m_runs->rescan();
  m_hooks.renamed();
  return {};
}

void RunMenu::trash(const QStringList& dirs) {
  if (m_window->isVisible() && QApplication::activeModalWidget() == nullptr &&
      QMessageBox::question(m_window, tr("Move to trash?"),
                            tr("Move %n run(s) to the trash? Their folders can be restored from there.", nullptr,
                               static_cast<int>(dirs.size()))) != QMessageBox::Yes)
    return;
  const auto going = [this](const QString& dir) {
    const Job* job = m_jobs->jobFor(dir);
    return job != nullptr && job->isActive();
  };
  for (const QString& dir : dirs)
    if (!going(dir)) m_hooks.releaseRun(QFileInfo(dir).absoluteFilePath());
  const QStringList notMoved = moveRunsToTrash(dirs, going);
  m_runs->rescan();
  if (!notMoved.isEmpty())
    m_hooks.tellProblem(tr("Not moved"), tr("Not moved to the trash: %1.").arg(notMoved.join(", ")));
}

void RunMenu::continueElsewhere(const QString& runDir) {
  QSettings settings;
  const QList<HostEntry> hosts = HostStore::load(settings);
  if (hosts.isEmpty())
    return m_hooks.tellProblem(
        tr("No host to continue on"),
        tr("Add the host (or the new Colab runtime) in Hosts… first, then continue the run there."));
  // Window-modal, not blocking: the app keeps following its runs while it is up.
  auto* dialog = new ContinueDialog(runDir, hosts, JobController::workDirOf(runDir), JobController::targetOf(runDir),
                                    m_window);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog, runDir] {
    const JobController::Started started = m_jobs->continueOn(runDir, dialog->target(), dialog->workDir());
    if (!started.error.isEmpty()) return m_hooks.tellProblem(tr("Cannot continue"), started.error);
    m_runs->rescan();
    m_hooks.showRun(runDir);
  });
  dialog->open();
}

}  // namespace traindeck
