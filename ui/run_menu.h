// The run list's context menu and what its actions do: Continue… (a run of this machine resumes
// in its folder; a remote one continues on a host picked in ContinueDialog, in the job's work
// folder), Compare, Rename…, Open folder, Copy config, Move to trash…, each enabled as
// runActions() says for the run clicked. The window owns one and tells it, through Hooks, how to
// show a run, compare, say a problem or a note, and let go of a run about to be trashed.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>

#include "jobs/run_actions.h"

class QMenu;
class QWidget;

namespace traindeck {

class JobController;
class RunListModel;
struct RunSummary;

class RunMenu : public QObject {
  Q_OBJECT
 public:
  struct Hooks {
    std::function<void(const QString& runDir)> showRun;
    std::function<void(const QStringList& runDirs)> compare;
    std::function<void(const QString& title, const QString& text)> tellProblem;
    std::function<void(const QString& text)> note;          // the status bar, a few seconds
    std::function<void(const QString& runDir)> releaseRun;  // about to be trashed: stop showing it
    std::function<void()> renamed;                          // a name changed: the header says it again
  };

  RunMenu(JobController* jobs, RunListModel* runs, QWidget* window, Hooks hooks);

  // For these runs (the first is the one clicked); each action named for tests. The caller owns it.
  QMenu* menuFor(const QStringList& runDirs);
  // What can be done to this run now.
  RunActions actionsFor(const QString& runDir, const RunSummary& run) const;
  // An ended run's name. Empty string, or why not.
  QString rename(const QString& runDir, const QString& name);
  // Asked first when someone is there to answer; the folders go to the desktop's trash.
  void trash(const QStringList& runDirs);
  // A remote run continues on a host the user picks (window-modal, not blocking).
  void continueElsewhere(const QString& runDir);

 private:
  JobController* m_jobs;
  RunListModel* m_runs;
  QWidget* m_window;
  Hooks m_hooks;
};

}  // namespace traindeck
