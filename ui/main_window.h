// The main window wires the pieces together and owns none of a run's data: the run list
// (app/runs' RunListModel) beside three pages (Setup, Monitor, Logs), a toolbar with New, Open,
// Save, Start, Stop and Kill, and the selected run's RunSession feeding the pages.
#pragma once

#include <QMainWindow>
#include <QStringList>
#include <memory>

class QAction;
class QLabel;
class QSplitter;
class QTableView;
class QTabWidget;

namespace traindeck {

class LocalJob;
class LogsPage;
class MonitorPage;
class RunListModel;
class RunSession;
class SetupPage;

struct MainWindowOptions {
  QStringList presetDirs;
  QString configPath = "demo-cpu";  // a YAML file or a preset name, shown on the Setup page
  QString runsRoot;                 // where runs are listed and new ones made
  QString openRun;                  // a run directory to show first (may be outside the runs root)
  QString trainBinary;              // traindeck-train
};

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(const MainWindowOptions& options, QWidget* parent = nullptr);
  ~MainWindow() override;

  SetupPage* setupPage() const { return m_setup; }
  MonitorPage* monitorPage() const { return m_monitor; }
  LogsPage* logsPage() const { return m_logs; }
  RunListModel* runList() const { return m_runs; }
  LocalJob* job() const { return m_job.get(); }
  QString currentRunDir() const;

 public slots:
  void openConfig(const QString& nameOrPath);
  void showRun(const QString& runDir);
  // Starts the Setup page's job under the runs root; returns the new run directory, or empty.
  QString startRun(const QStringList& extraArgs = {});
  void stopRun();
  void killRun();
  // Each page, as the window shows it, to <folder>/<page>.png; false if one could not be written.
  bool saveScreenshots(const QString& folder);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildActions();
  void updateActions();
  void showFailureIfAny();
  void runSelected();

  MainWindowOptions m_options;
  RunListModel* m_runs;
  QTableView* m_runTable;
  QTabWidget* m_pages;
  SetupPage* m_setup;
  MonitorPage* m_monitor;
  LogsPage* m_logs;
  QSplitter* m_splitter;
  QLabel* m_runLabel;
  std::unique_ptr<RunSession> m_session;
  std::unique_ptr<LocalJob> m_job;
  QAction* m_start = nullptr;
  QAction* m_stop = nullptr;
  QAction* m_kill = nullptr;
};

}  // namespace traindeck
