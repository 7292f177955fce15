// The Setup page's Sweep tab, a view of app/setup's sweep document: the job's sweep.yaml as
// typed (handed to the document 300 ms after the last key, as the job's YAML is), each problem
// marked at its line and listed, the trials and their cost, its own New, Open, Save, and Run
// sweep with the slots on the job's target (and, on a Slurm cluster, trials to one job) and on
// the saved hosts ticked, enabled only for a saved sweep without errors.
#pragma once

#include <QMap>
#include <QString>
#include <QStringList>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTimer;

namespace traindeck {

class SetupProblemList;
class SweepDocument;
class SweepHostsPicker;
class SweepSummaryPanel;
struct HostEntry;

class SetupSweepTab : public QWidget {
  Q_OBJECT
 public:
  explicit SetupSweepTab(SweepDocument* sweep, QWidget* parent = nullptr);

  // Folders nothing is saved into (the app's presets).
  void setForbiddenDirs(const QStringList& dirs) { m_forbiddenDirs = dirs; }
  // The typing the document has not read yet goes to it now.
  void flush();
  void goToLine(int line);
  // The saved SSH hosts the sweep may also run on.
  void setHosts(const QList<HostEntry>& hosts);
  SweepHostsPicker* hostsPicker() const { return m_hosts; }

 public slots:
  void newSweep();
  // Each takes a path, or asks for one with a file dialog when it is empty.
  void openFile(const QString& path = {});
  bool saveFile(const QString& path = {});

 signals:
  // `hostSlots`: the saved hosts ticked, by name, with their trials at once.
  // `pack`: trials to one job on a Slurm target (1 elsewhere).
  void sweepStartRequested(const QString& sweepFile, int localSlots, int pack, const QMap<QString, int>& hostSlots);

 private:
  bool mayReplaceEdits();
  void showDocument();
  void updateTrialsAtOnce();

  SweepDocument* m_sweep;
  QStringList m_forbiddenDirs;
  QString m_shownText;  // the document's text as last shown; the editor differs while typing
  bool m_settingText = false;
  QLabel* m_file = nullptr;
  QPlainTextEdit* m_yaml = nullptr;
  QTimer* m_debounce = nullptr;
  SetupProblemList* m_problems = nullptr;
  SweepSummaryPanel* m_summary = nullptr;
  QSpinBox* m_slots = nullptr;
  QSpinBox* m_pack = nullptr;  // trials to one Slurm job
  SweepHostsPicker* m_hosts = nullptr;
  QPushButton* m_run = nullptr;
  QLabel* m_runNote = nullptr;
};

}  // namespace traindeck
