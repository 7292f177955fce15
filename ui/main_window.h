// The main window wires the pieces together and decides nothing of its own: the run list
// (RunListPanel over app/runs' RunListModel) beside five pages (Setup, Monitor, Logs, Compare, Sweep), a
// toolbar with New, Open, Save, Start, Stop, Kill and Compare, the shown run's shared session (from
// the RunRegistry) feeding the run pages, the Comparison of the runs selected together feeding the
// Compare page, and the JobController, whose job for the shown run Stop and Kill act on and which
// says whether a machine has room for a start. RunMenu, WindowState, HelpMenu and LinkStatusLabel
// hold the rest.
#pragma once

#include <QMainWindow>
#include <QStringList>
#include <memory>

#include "jobs/remote_fetch.h"

class QAction;
class QLabel;
class QSettings;
class QMenu;
class QSplitter;
class QTabWidget;

namespace traindeck {

class BootstrapView;
class HelpMenu;
class LinkStatusLabel;
class ComparePage;
class RunListPanel;
class RunMenu;
class Comparison;
class ComparisonSets;
class Job;
class JobController;
class LogsPage;
class MonitorPage;
class RunListModel;
class RunRegistry;
class RunSession;
struct RunSummary;
class SetupPage;
class SweepPage;
class SweepRunners;

struct MainWindowOptions {
  QStringList presetDirs;
  QString configPath = "demo-cpu";  // a YAML file or a preset name, shown on the Setup page
  QString runsRoot;                 // where runs are listed and new ones made
  QString openRun;                  // a run directory, or a folder of runs, to show first (openFolder)
  QString trainBinary;              // traindeck-train
  QString remotePayloadDir;         // default: <trainBinary's folder>/../share/traindeck/remote
  QStringList compareRuns;          // runs to show side by side on the Compare page first
};

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(const MainWindowOptions& options, QWidget* parent = nullptr);
  ~MainWindow() override;

  SetupPage* setupPage() const { return m_setup; }
  MonitorPage* monitorPage() const { return m_monitor; }
  LogsPage* logsPage() const { return m_logs; }
  ComparePage* comparePage() const { return m_compare; }
  SweepPage* sweepPage() const { return m_sweep; }
  RunListModel* runList() const { return m_runs; }
  JobController* jobs() const { return m_jobs; }
  SweepRunners* sweeps() const { return m_sweeps; }
  QString docsPath() const;      // the README that Help > Documentation opens, or empty
  QString tutorialPath() const;  // docs/tutorial.md, which Help > Tutorial (F1) opens, or empty
  RunRegistry* registry() const { return m_registry.get(); }
  // The job of the run shown, or nullptr when it has none here (then Stop and Kill are off).
  Job* shownJob() const;
  QString currentRunDir() const;

 public slots:
  void openConfig(const QString& nameOrPath);
  void showRun(const QString& runDir);
  // Open folder… and --open: the runs found in the folder (TrainDeck's and other tools') are
  // listed beside the root's for this session; one run is shown, several are compared (the first
  // kOpenedFolderCompared). A folder without runs is named in a message with the formats looked for.
  void openFolder(const QString& folder);
  // The Sweep page on this sweep folder (the one holding sweep.json), followed while it runs;
  // File > Open sweep…, --open on a sweep folder, and the runner when it starts a sweep.
  void showSweep(const QString& sweepDir);
  // Opens the Compare page on these runs (the run list's selection when empty).
  void compareRuns(const QStringList& runDirs = {});
  // Starts the Setup page's job under the runs root and shows it; returns the new run
  // directory, or empty (after telling the user why).
  QString startRun(const QStringList& extraArgs = {});
  // Runs the sweep file (docs/sweeps.md), `localSlots` trials at once on its job's target and
  // on the saved hosts named in `hostSlots` (trials at once each); returns its sweep folder, or
  // empty (after telling the user why: the sweep's problems at their lines, a host not saved).
  QString startSweep(const QString& sweepFile, int localSlots, int pack = 1, const QMap<QString, int>& hostSlots = {});
  // Stop and Kill act on the run shown, and only when it has a live job here.
  void stopRun();
  void killRun();
  // Each page, as the window shows it, to <folder>/<page>.png; false if one could not be written.
  bool saveScreenshots(const QString& folder);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  // The Hosts dialog; the Setup page's "Where to run" then shows what changed.
  void openHosts();
  // The run shown, the runs compared and the page when the window closed (WindowState), where
  // they still are; never a page that would open empty.
  void restoreShown(QSettings& settings);

 public:
  // The run list's context menu for these runs (the first is the one clicked): Continue… (a run
  // of this machine resumes in its folder, a remote one asks for a host), Compare, Rename…, Open
  // folder, Copy config, Move to trash…; each enabled as runActions() says and named for tests.
  QMenu* runMenu(const QStringList& runDirs);
  // An ended run's name in its run.json. Empty string, or why not.
  QString renameRun(const QString& runDir, const QString& name);
  // The run list header's menu: columns to show or hide, and config keys as columns.
  QMenu* columnMenu();
  void trashRuns(const QStringList& runDirs);
  // How many newest checkpoints of each remote run are copied here (kept in QSettings).
  void setCheckpointsKeptHere(int keep);
  static constexpr const char* kCheckpointsKeptHereKey = "remote/checkpointsKeptHere";
  static constexpr const char* kMonitorChartsKey = "monitor/charts";
  static constexpr const char* kShownSweepKey = "sweep/shown";  // the Sweep page's folder at the last close
  static constexpr int kOpenedFolderCompared = 20;  // runs of an opened folder put on Compare

 private:
  RunSummary shownSummary() const;                    // the shown run's
  QString statusOf(const RunSummary& summary) const;  // as every page says it
  void showRunLabel(const RunSummary& summary);
  // A job's link changed: the status bar, and the header and progress of the run shown.
  void showLink(const QString& runDir);
  static constexpr int kMaxHeaderIdChars = 64;
  void showShownRunStatus();
  void buildMenus(const QList<QAction*>& file);
  // A remote run's newest checkpoint or its Hugging Face export, into its mirror.
  void fetchFromHost(FetchKind kind);
  void refreshHosts();
  void buildActions();
  void updateActions();
  void showFailureIfAny();
  void tellProblem(const QString& title, const QString& text);
  void releaseShownRun(const QString& runDir);  // about to be trashed: the pages let go of it
  void showSessionMetrics();

  MainWindowOptions m_options;
  std::unique_ptr<RunRegistry> m_registry;  // before everything holding its sessions
  JobController* m_jobs;
  SweepRunners* m_sweeps;        // the sweeps this app runs, on m_jobs
  RunMenu* m_runMenu = nullptr;  // the run list's context menu and its actions
  BootstrapView* m_bootstrap = nullptr;
  HelpMenu* m_help = nullptr;
  QString m_shownStatus;  // the shown run's status as the pages say it, kept by showShownRunStatus
  QString m_remotePayloadDir;
  QStringList m_presetDirs;  // the helper script and the trainer's sources for remote hosts
  RunListModel* m_runs;
  RunListPanel* m_runList = nullptr;  // the list, its filter and selection
  QTabWidget* m_pages;
  SetupPage* m_setup;
  MonitorPage* m_monitor;
  LogsPage* m_logs;
  ComparePage* m_compare;
  SweepPage* m_sweep;
  QSplitter* m_splitter;
  QLabel* m_runLabel;
  LinkStatusLabel* m_linkStatus = nullptr;  // in the status bar while a followed run's link is down
  std::shared_ptr<const RunSession> m_session;
  std::unique_ptr<Comparison> m_comparison;
  std::unique_ptr<ComparisonSets> m_comparisonSets;
  QAction* m_start = nullptr;
  QAction* m_stop = nullptr;
  QAction* m_kill = nullptr;
  QAction* m_compareAction = nullptr;
  QAction* m_fetchCheckpoint = nullptr;
  QAction* m_fetchExport = nullptr;
};

}  // namespace traindeck
